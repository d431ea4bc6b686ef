# The harness's folders stand in floors (layers_test.cpp): no folder's code includes a folder that
# includes it, directly or through others.
add_executable(layers_tests ${CMAKE_CURRENT_LIST_DIR}/layers_test.cpp)
tidemark_test_code(layers_tests)
target_link_libraries(layers_tests PRIVATE GTest::gtest GTest::gtest_main)
target_compile_definitions(layers_tests PRIVATE TIDEMARK_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(layers_tests TEST_PREFIX Tidemark. PROPERTIES LABELS docs)
