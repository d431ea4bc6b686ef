# The soak, a bounded slice: the 1.3 M-call one-present workload in the spawn lane with the
# client's and the server's memory sampled (scripts/nightly runs every lane).
add_test(NAME Tidemark.Soak.TheOnePresentSoakStaysUnderTheAnchorsSlopeInTheSpawnLane
         COMMAND ${expect_exit} 0 "^soak: flat and green in every lane"
                 $<TARGET_FILE:tidemark> soak ${PROJECT_SOURCE_DIR}/soak/one-present-1300000-calls.yaml --lane spawn
                 --every 20000 --report ${PROJECT_BINARY_DIR}/reports/soak)
set_tests_properties(Tidemark.Soak.TheOnePresentSoakStaysUnderTheAnchorsSlopeInTheSpawnLane PROPERTIES LABELS soak TIMEOUT 300)
