# The tree's C++ is as clang-format-16 would write it (.clang-format at the top): a file it would
# change fails, named with the first line it would change. Debian's clang-format-16
# (scripts/setup) is the formatter; another version may format differently.
find_program(CLANG_FORMAT clang-format-16)
if(NOT CLANG_FORMAT)
  set(CLANG_FORMAT sh -c "echo 'clang-format-16 is not installed (scripts/setup installs it)'; exit 1" clang-format-16)
endif()
add_test(NAME Tidemark.Format.EveryCxxFileIsAsClangFormatWritesIt
         COMMAND bash -c [==[cd "$1" && shift && git ls-files -z '*.cpp' '*.h' | xargs -0 "$@" --dry-run --Werror && echo formatted]==]
                 bash ${PROJECT_SOURCE_DIR} ${CLANG_FORMAT})
set_tests_properties(Tidemark.Format.EveryCxxFileIsAsClangFormatWritesIt PROPERTIES LABELS format
                     PASS_REGULAR_EXPRESSION "^formatted\n$")
# Its negative control: a file written against the style is refused, by name and line.
add_test(NAME Tidemark.Format.AFileAgainstTheStyleIsRefused
         COMMAND ${expect_exit} 1 "misformatted\\.cpp:1:[0-9]+: error: code should be clang-formatted"
                 bash -c [==[file=$1/misformatted.cpp && printf 'int  main( ){return 0;}\n' >"$file" && shift 2 &&
                             "$@" --style=file:"$0/.clang-format" --dry-run --Werror "$file"]==]
                 ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR} x ${CLANG_FORMAT})
set_tests_properties(Tidemark.Format.AFileAgainstTheStyleIsRefused PROPERTIES LABELS format)
