# One list of warnings for every target of ours. DL_WERROR turns them into
# errors (CI and the test build set it).
set(DL_WARNINGS
    -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes
    -Wmissing-prototypes -Wpointer-arith -Wundef -Wvla)

function(dl_target_warnings target)
  target_compile_options(${target} PRIVATE ${DL_WARNINGS})
  if(DL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
