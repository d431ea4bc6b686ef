# Determinism: 20 runs of every scenario give one digest each.
add_test(NAME Tidemark.Determinism.EveryScenarioGivesOneDigestIn20Runs
         COMMAND $<TARGET_FILE:tidemark> run --repeat 20 ${PROJECT_SOURCE_DIR}/scenarios/magma-reclaim ${PROJECT_SOURCE_DIR}/scenarios/magma-wire-buffers ${PROJECT_SOURCE_DIR}/scenarios/gpumem
                 ${PROJECT_SOURCE_DIR}/scenarios/kmd ${PROJECT_SOURCE_DIR}/scenarios/kgsl ${PROJECT_SOURCE_DIR}/scenarios/counters
                 ${PROJECT_SOURCE_DIR}/fixtures
                 --report ${PROJECT_BINARY_DIR}/reports/determinism)
set_tests_properties(Tidemark.Determinism.EveryScenarioGivesOneDigestIn20Runs PROPERTIES LABELS determinism COST 20)
# The same on a real driver: the portable group on Zink (its scenarios whose own backend is gl
# are in the run above). Its known failures stay expected reds; a second digest would not be.
add_test(NAME Tidemark.Determinism.ThePortableGroupOnZinkGivesOneDigestIn20Runs
         COMMAND $<TARGET_FILE:tidemark> run --repeat 20 --backend gl ${PROJECT_SOURCE_DIR}/scenarios/portable
                 --expectations ${PROJECT_SOURCE_DIR}/expectations.txt --report ${PROJECT_BINARY_DIR}/reports/determinism-gl)
set_tests_properties(Tidemark.Determinism.ThePortableGroupOnZinkGivesOneDigestIn20Runs PROPERTIES LABELS "determinism;zink")
