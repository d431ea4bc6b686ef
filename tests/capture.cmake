# Capture fixtures (captures/*.capture.yaml): a real program's apitrace capture replayed by
# eglretrace on Zink under the layer, held to its bounds three times over with one set of gauges
# (the nightly: 20), each control red exactly as it names, and a bad fixture refused at its place.
# Not in a sanitizer build: the instrumented layer needs the sanitizer runtime, which eglretrace lacks.
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize")
  return()
endif()
set(captures ${PROJECT_SOURCE_DIR}/captures)
add_test(NAME Tidemark.Capture.TheGlRespecifyCaptureReplaysWithinItsBoundsWithOneSetOfGauges
         COMMAND ${expect_exit} 0 "GREEN Capture.Captures.two-thousand-4-kib-respecify-rounds-replay-under-a-buffer-ceiling"
                 $<TARGET_FILE:tidemark> run ${captures} --repeat 3 --report ${PROJECT_BINARY_DIR}/reports/capture)
add_test(NAME Tidemark.Capture.EachFaultMakesExactlyTheChecksItNamesRed
         COMMAND ${expect_exit} 0 "RED-ONCE PASS captures/two-thousand-4-kib-respecify-rounds-replay-under-a-buffer-ceiling"
                 $<TARGET_FILE:tidemark> red-once ${captures} --report ${PROJECT_BINARY_DIR}/reports/capture-red-once)
add_test(NAME Tidemark.Capture.AControlNamingACheckTheFixtureLacksIsBadInput
         COMMAND ${expect_exit} 2 "bad.capture.yaml:[0-9]+:[0-9]+: expected a check of the fixture"
                 $<TARGET_FILE:tidemark> run ${testdata}/capture/bad.capture.yaml)
set_tests_properties(Tidemark.Capture.TheGlRespecifyCaptureReplaysWithinItsBoundsWithOneSetOfGauges
                     Tidemark.Capture.EachFaultMakesExactlyTheChecksItNamesRed
                     Tidemark.Capture.AControlNamingACheckTheFixtureLacksIsBadInput
                     PROPERTIES LABELS "capture;zink;cli" TIMEOUT 120
                     ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")
