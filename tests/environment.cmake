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
