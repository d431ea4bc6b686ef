# Docs that cannot lie about the tree (docs_test.cpp): a path a comment (harness/, tests/,
# scripts/), README.md, docs/, a scenarios README or lanes/README.md cites exists, and
# lanes/README.md names wire/codec.h's protocol version.
add_executable(docs_tests ${CMAKE_CURRENT_LIST_DIR}/docs_test.cpp)
tidemark_test_code(docs_tests)
target_link_libraries(docs_tests PRIVATE tidemark_wire GTest::gtest GTest::gtest_main)
target_compile_definitions(docs_tests PRIVATE TIDEMARK_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(docs_tests TEST_PREFIX Tidemark. PROPERTIES LABELS docs)
