# Every page's examples run (tests/docs/run_examples.cmake): README.md, scenarios/README.md and
# each page under docs/, one test a page, in a fresh folder of the build's own. The pages break
# scenarios with mutants, so a build without them (release) leaves the examples to the others.
if(NOT TIDEMARK_MUTANTS)
  return()
endif()
file(GLOB doc_pages RELATIVE ${PROJECT_SOURCE_DIR} CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
foreach(page README.md scenarios/README.md ${doc_pages})
  string(REGEX REPLACE "\\.md$" "" name "${page}")
  string(REPLACE "/" "." name "${name}")
  add_test(NAME Tidemark.Docs.${name}.EveryCommandItShowsRuns
           COMMAND ${CMAKE_COMMAND} -DPAGE=${page} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                   -DBIN_DIR=$<TARGET_FILE_DIR:tidemark> -DWORK_DIR=${PROJECT_BINARY_DIR}/docs-examples/${name}
                   -P ${CMAKE_CURRENT_LIST_DIR}/docs/run_examples.cmake)
  set_tests_properties(Tidemark.Docs.${name}.EveryCommandItShowsRuns PROPERTIES LABELS docs)
endforeach()
