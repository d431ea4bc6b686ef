# A red run exits 1 and names the check, the measured value and the bound.
add_test(NAME Tidemark.Red.AKnobOverrideThatDisablesTheWatermarksGoesRed
         COMMAND ${expect_exit} 1 "failed gauge `wlivepk <= wbufs \\+ 1024 \\+ 2`: wlivepk = 3001, bound wbufs \\+ 1024 \\+ 2 = 1027"
                 $<TARGET_FILE:tidemark> run --knob wire_deferred_mb=0
                 ${PROJECT_SOURCE_DIR}/scenarios/magma-reclaim/many-small-respecify-and-draw-rounds-stay-under-the-store-count-ceiling.yaml
                 --report ${PROJECT_BINARY_DIR}/reports/red)
set_tests_properties(Tidemark.Red.AKnobOverrideThatDisablesTheWatermarksGoesRed PROPERTIES LABELS cli)
