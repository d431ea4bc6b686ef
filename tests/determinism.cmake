# Determinism: 20 runs of every scenario give one digest each, and the same on a real driver: the
# portable group on Zink (its scenarios whose own backend is gl are in the first). Its known
# failures stay expected reds; a second digest would not be. The 20-run loops are the nightly's
# (label nightly); CI runs the same sets 3 times each (a second digest in 3 runs fails the same way).
set(determinism_sets ${PROJECT_SOURCE_DIR}/scenarios/magma-reclaim ${PROJECT_SOURCE_DIR}/scenarios/magma-wire-buffers
                     ${PROJECT_SOURCE_DIR}/scenarios/gpumem ${PROJECT_SOURCE_DIR}/scenarios/kmd ${PROJECT_SOURCE_DIR}/scenarios/kgsl
                     ${PROJECT_SOURCE_DIR}/scenarios/counters ${PROJECT_SOURCE_DIR}/fixtures)
foreach(runs 20 3)
  set(labels determinism)
  if(runs EQUAL 20)
    list(APPEND labels nightly)
  endif()
  add_test(NAME Tidemark.Determinism.EveryScenarioGivesOneDigestIn${runs}Runs
           COMMAND $<TARGET_FILE:tidemark> run --repeat ${runs} ${determinism_sets}
                   --report ${PROJECT_BINARY_DIR}/reports/determinism-${runs})
  set_tests_properties(Tidemark.Determinism.EveryScenarioGivesOneDigestIn${runs}Runs PROPERTIES
                       LABELS "${labels}" COST ${runs})
  add_test(NAME Tidemark.Determinism.ThePortableGroupOnZinkGivesOneDigestIn${runs}Runs
           COMMAND $<TARGET_FILE:tidemark> run --repeat ${runs} --backend gl ${PROJECT_SOURCE_DIR}/scenarios/portable
                   --expectations ${PROJECT_SOURCE_DIR}/expectations.txt --report ${PROJECT_BINARY_DIR}/reports/determinism-gl-${runs})
  set_tests_properties(Tidemark.Determinism.ThePortableGroupOnZinkGivesOneDigestIn${runs}Runs PROPERTIES
                       LABELS "${labels};zink")
endforeach()
