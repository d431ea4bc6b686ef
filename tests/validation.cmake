# The backend is correct Vulkan: every scenario, zero messages from the Khronos layer
# (core and synchronization validation). The whole set is the nightly's (label nightly): CI's
# slice is every group but scenarios/soak, whose 100 000 draws under the layer take half the
# set's time and make the calls the reclaim group makes.
file(GLOB validation_groups LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/scenarios/*)
list(FILTER validation_groups EXCLUDE REGEX "/soak$|\\.md$")
add_test(NAME Tidemark.Validation.EveryScenarioRunsCleanUnderTheKhronosLayer
         COMMAND $<TARGET_FILE:tidemark> run --validation ${PROJECT_SOURCE_DIR}/scenarios ${PROJECT_SOURCE_DIR}/fixtures
                 --report ${PROJECT_BINARY_DIR}/reports/validation)
add_test(NAME Tidemark.Validation.EveryScenarioButTheSoakRunsCleanUnderTheKhronosLayer
         COMMAND $<TARGET_FILE:tidemark> run --validation ${validation_groups} ${PROJECT_SOURCE_DIR}/fixtures
                 --report ${PROJECT_BINARY_DIR}/reports/validation-slice)
set_tests_properties(Tidemark.Validation.EveryScenarioRunsCleanUnderTheKhronosLayer PROPERTIES LABELS "validation;nightly")
set_tests_properties(Tidemark.Validation.EveryScenarioButTheSoakRunsCleanUnderTheKhronosLayer PROPERTIES LABELS validation)
# The layer (1.3.239) leaks a few kB at teardown and is unloaded before LeakSanitizer looks,
# so under the sanitizers preset these check memory errors but not leaks.
set_tests_properties(Tidemark.Validation.EveryScenarioRunsCleanUnderTheKhronosLayer
                     Tidemark.Validation.EveryScenarioButTheSoakRunsCleanUnderTheKhronosLayer PROPERTIES
                     ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0")
