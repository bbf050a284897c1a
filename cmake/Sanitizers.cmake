# DL_SANITIZE=ON builds everything with AddressSanitizer and
# UndefinedBehaviorSanitizer; UBSan findings abort so that tests fail.
if(DL_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined)
endif()
