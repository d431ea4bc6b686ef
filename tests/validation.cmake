# The backend is correct Vulkan: every scenario, zero messages from the Khronos layer
# (core and synchronization validation).
add_test(NAME Tidemark.Validation.EveryScenarioRunsCleanUnderTheKhronosLayer
         COMMAND $<TARGET_FILE:tidemark> run --validation ${PROJECT_SOURCE_DIR}/scenarios ${PROJECT_SOURCE_DIR}/fixtures
                 --report ${PROJECT_BINARY_DIR}/reports/validation)
# The layer (1.3.239) leaks a few kB at teardown and is unloaded before LeakSanitizer looks,
# so under the sanitizers preset this test checks memory errors but not leaks.
set_tests_properties(Tidemark.Validation.EveryScenarioRunsCleanUnderTheKhronosLayer PROPERTIES LABELS validation
                     ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0")
