# DL_SANITIZE=ON builds everything with AddressSanitizer and
# UndefinedBehaviorSanitizer; UBSan findings abort so that tests fail.
# float-cast-overflow (a double out of an integer's range converted to it)
# is part of clang's "undefined" but not of GCC's: named for both.
if(DL_SANITIZE)
  add_compile_options(-fsanitize=address,undefined,float-cast-overflow
                      -fno-sanitize-recover=undefined,float-cast-overflow
                      -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined,float-cast-overflow)
endif()
