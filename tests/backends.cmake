# docs/drivers.md's "your own GL driver" in a test: an EGL vendor file naming Mesa's libEGL (Zink and its
# deterministic settings chosen by the environment, as a user's would be: gl-native sets nothing
# of the driver's) runs the portable group as gl-native, in
# place of the gl the scenarios list; its known failures are two lines of its own.
set(TIDEMARK_MESA_EGL /usr/lib/x86_64-linux-gnu/libEGL_mesa.so.0 CACHE FILEPATH "Mesa's EGL vendor library, for the gl-native test")
if(EXISTS ${TIDEMARK_MESA_EGL})
  file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/xdg-runtime)
  file(WRITE ${PROJECT_BINARY_DIR}/mesa-egl-vendor.json
       "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"${TIDEMARK_MESA_EGL}\"}}\n")
  add_test(NAME Tidemark.GlNative.YourOwnEglVendorRunsThePortableGroupInZinksPlace
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 0 "4 green, 0 red"
                   $<TARGET_FILE:tidemark> run ${PROJECT_SOURCE_DIR}/scenarios/portable --backend gl-native
                   --expectations ${testdata}/expectations/gl-native-mesa.txt --report ${PROJECT_BINARY_DIR}/reports/gl-native)
  set_tests_properties(Tidemark.GlNative.YourOwnEglVendorRunsThePortableGroupInZinksPlace PROPERTIES LABELS "cli;zink"
                       ENVIRONMENT "__EGL_VENDOR_LIBRARY_FILENAMES=${PROJECT_BINARY_DIR}/mesa-egl-vendor.json;GALLIUM_DRIVER=zink;LIBGL_ALWAYS_SOFTWARE=1;GALLIUM_THREAD=0;LP_NUM_THREADS=0;MESA_SHADER_CACHE_DISABLE=true;XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime"
                       ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")
  # The same vendor on llvmpipe (GL with no Vulkan beneath) gives the layer no device: gl-native
  # refuses to start (exit 3) where it was once green with every device gauge 0 on a scenario
  # that is red on gl.
  add_test(NAME Tidemark.GlNative.AVendorWithNoVulkanBeneathIsRefusedNotGreen
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 3 "expected the driver's Vulkan device under the Tidemark layer, found none"
                   $<TARGET_FILE:tidemark> run ${PROJECT_SOURCE_DIR}/scenarios/portable/many-small-respecify-and-draw-rounds-stay-under-a-count-ceiling.yaml
                   --backend gl-native --report ${PROJECT_BINARY_DIR}/reports/gl-native-llvmpipe)
  set_tests_properties(Tidemark.GlNative.AVendorWithNoVulkanBeneathIsRefusedNotGreen PROPERTIES LABELS "cli;zink"
                       ENVIRONMENT "__EGL_VENDOR_LIBRARY_FILENAMES=${PROJECT_BINARY_DIR}/mesa-egl-vendor.json;GALLIUM_DRIVER=llvmpipe;LIBGL_ALWAYS_SOFTWARE=1;GALLIUM_THREAD=0;LP_NUM_THREADS=0;MESA_SHADER_CACHE_DISABLE=true;XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime"
                       ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")
endif()
