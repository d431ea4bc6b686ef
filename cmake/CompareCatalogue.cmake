# cmake -DTIDEMARK=... -DCATALOGUE=... -P CompareCatalogue.cmake
execute_process(COMMAND ${TIDEMARK} mutants OUTPUT_VARIABLE printed RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "tidemark mutants exited ${code}")
endif()
file(READ ${CATALOGUE} committed)
if(NOT printed STREQUAL committed)
  message(FATAL_ERROR "${CATALOGUE} differs from `tidemark mutants`; regenerate it:\n  tidemark mutants > red_once/mutants.md\n--- printed ---\n${printed}")
endif()
