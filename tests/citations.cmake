# Docs that cannot lie about the tree (citations_test.cpp): a path a comment (harness/, tests/,
# scripts/), README.md, docs/, a scenarios README or lanes/README.md cites exists, and
# lanes/README.md names wire/codec.h's protocol version.
add_executable(citations_tests ${CMAKE_CURRENT_LIST_DIR}/citations_test.cpp)
tidemark_test_code(citations_tests)
target_link_libraries(citations_tests PRIVATE tidemark_wire GTest::gtest GTest::gtest_main)
target_compile_definitions(citations_tests PRIVATE TIDEMARK_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(citations_tests TEST_PREFIX Tidemark. PROPERTIES LABELS docs)
