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
# tidemark capture: a program (tools/gl-respecify, 300 rounds) captured on Zink becomes a fixture
# whose bounds its replay measured and whose control is red; run and red-once take it as it is,
# and a second capture of the same name is refused.
add_test(NAME Tidemark.Capture.ACapturedProgramBecomesAFixtureThatRunsGreenAndGoesRedUnderItsControl
         COMMAND bash -c "set -e; rm -rf $0; $1 capture --out $0 --name three-hundred-rounds -- $2 --rounds 300 --size 4096 | tee $0.log; \
grep -q 'control hold_frees fails vkbufs == 0 (red, as it names)' $0.log; grep -q 'expect vkbufspk <= 306' $0.log; \
$1 run $0 --report $0-run | grep -q '^1 green, 0 red'; $1 red-once $0 --report $0-red-once | grep -q 'RED-ONCE PASS captures/three-hundred-rounds'; \
if $1 capture --out $0 --name three-hundred-rounds -- $2 --rounds 3 2>$0.again; then exit 1; fi; grep -q 'is there already' $0.again"
                 ${PROJECT_BINARY_DIR}/reports/capture-made $<TARGET_FILE:tidemark> $<TARGET_FILE:tidemark-gl-respecify>)
set_tests_properties(Tidemark.Capture.ACapturedProgramBecomesAFixtureThatRunsGreenAndGoesRedUnderItsControl
                     PROPERTIES LABELS "capture;zink;cli" TIMEOUT 120)
