# Included by the top-level CMakeLists.txt when DL_FUZZ=ON: instruments
# every target for libFuzzer (coverage) and with ASan + UBSan, so that the
# libraries the harnesses link are fuzzed, not only the harnesses. Needs
# clang; the harnesses themselves add -fsanitize=fuzzer at link time.
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "DL_FUZZ=ON needs clang (configure with CC=clang), not ${CMAKE_C_COMPILER_ID}")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                    -fno-omit-frame-pointer -g)
add_link_options(-fsanitize=address,undefined)
