# A machine without lavapipe or the validation layer gets exit 3 and the package to install.
add_test(NAME Tidemark.Environment.NoLavapipeNamesMesaVulkanDrivers
         COMMAND ${expect_exit} 3 "^tidemark: no lavapipe \\(CPU\\) Vulkan device: install mesa-vulkan-drivers"
                 $<TARGET_FILE:tidemark> run ${PROJECT_SOURCE_DIR}/scenarios/magma-wire-buffers
                 --report ${PROJECT_BINARY_DIR}/reports/no-lavapipe)
set_tests_properties(Tidemark.Environment.NoLavapipeNamesMesaVulkanDrivers PROPERTIES
                     ENVIRONMENT "VK_ICD_FILENAMES=/nonexistent/icd.json;EXPECT_ABSENT=GREEN|RED" LABELS cli)
add_test(NAME Tidemark.Environment.NoValidationLayerNamesItsPackage
         COMMAND ${expect_exit} 3 "^tidemark: VK_LAYER_KHRONOS_validation is not installed: install vulkan-validationlayers"
                 $<TARGET_FILE:tidemark> run --validation ${PROJECT_SOURCE_DIR}/scenarios/magma-wire-buffers
                 --report ${PROJECT_BINARY_DIR}/reports/no-layer)
set_tests_properties(Tidemark.Environment.NoValidationLayerNamesItsPackage PROPERTIES
                     ENVIRONMENT "VK_LAYER_PATH=/nonexistent;EXPECT_ABSENT=GREEN|RED" LABELS cli)
# `tidemark doctor`: each finding looked at for real, the package for what is missing, exit 3
# only when a selected backend lacks something.
add_test(NAME Tidemark.Doctor.ThisMachineRunsTheVulkanBackendAndSaysWhereTheLayerIs
         COMMAND ${expect_exit} 0 "ok      backend vulkan: starts and draws one band right"
                 $<TARGET_FILE:tidemark> doctor --backend vulkan)
set_tests_properties(Tidemark.Doctor.ThisMachineRunsTheVulkanBackendAndSaysWhereTheLayerIs PROPERTIES
                     ENVIRONMENT "EXPECT_ALSO=^ok      Tidemark layer .*: in ${PROJECT_BINARY_DIR}/layer$"
                     LABELS "cli;doctor")
add_test(NAME Tidemark.Doctor.NoLavapipeIsMissingWithItsPackageAndExit3
         COMMAND ${expect_exit} 3 "MISSING Vulkan devices: .*\\(apt-get install mesa-vulkan-drivers\\)"
                 $<TARGET_FILE:tidemark> doctor --backend vulkan)
set_tests_properties(Tidemark.Doctor.NoLavapipeIsMissingWithItsPackageAndExit3 PROPERTIES
                     ENVIRONMENT "VK_ICD_FILENAMES=/nonexistent/icd.json" LABELS "cli;doctor")
add_test(NAME Tidemark.Doctor.ALayerNotWhereTidemarkLooksIsMissing
         COMMAND ${expect_exit} 3 "MISSING Tidemark layer \\(VK_LAYER_TIDEMARK_observe\\): expected the Tidemark layer at /nonexistent/"
                 $<TARGET_FILE:tidemark> doctor --backend vulkan)
set_tests_properties(Tidemark.Doctor.ALayerNotWhereTidemarkLooksIsMissing PROPERTIES
                     ENVIRONMENT "TIDEMARK_LAYER_DIR=/nonexistent" LABELS "cli;doctor")
add_test(NAME Tidemark.Doctor.AnUnknownBackendIsBadInput
         COMMAND ${expect_exit} 2 "unknown backend|expected a backend" $<TARGET_FILE:tidemark> doctor --backend nope)
set_tests_properties(Tidemark.Doctor.AnUnknownBackendIsBadInput PROPERTIES LABELS "cli;doctor")
