# The benchmark runs end to end and every replay reproduces its recording (no timing is
# asserted: figures come from `tidemark bench bench`, not from tests).
# The no-draw stream is measured against the bare Vulkan floor in every lane (and the floor under
# the Tidemark layer: the layer's own cost on the calls, and the calls the floor made), its monolith replay as a whole process
# against the floor with its draw (time and peak memory), the floor as a whole process under
# `tidemark observe` against it plainly, and the night is
# appended to a history whose plot has a panel per stream and lane (report/plot.h's step plot).
add_test(NAME Tidemark.Bench.EveryLaneReplaysBothStreamsExactly
         COMMAND bash -c "rm -rf $0 && $1 bench $2 --repeat 1 --floor $3 --report $0 --history $0/history.jsonl --label ctest && \
python3 -c 'import json,sys; b=json.load(open(sys.argv[1])); \
rows=[r for r in b[\"results\"] if r[\"stream\"].startswith(\"no-draw\")]; \
assert len(rows)==4 and all(isinstance(r[\"harness_ns_per_call\"],float) and r[\"floor_seconds\"]>0 for r in rows), rows; \
assert all(r[\"layer_seconds\"]>0 and r[\"floor_calls\"]>0 and r[\"floor_calls\"]%7==0 for r in rows), rows; \
whole=[r[\"whole_process\"] for r in b[\"results\"] if \"whole_process\" in r]; \
assert len(whole)==1 and [r[\"lane\"] for r in rows if \"whole_process\" in r]==[\"monolith\"], b; \
assert all(whole[0][k]>0 for k in (\"replay_seconds\",\"floor_seconds\",\"seconds_ratio\",\"replay_rss_mib\",\"floor_rss_mib\",\"rss_ratio\")), whole; \
observed=[r[\"observed_process\"] for r in b[\"results\"] if \"observed_process\" in r]; \
assert len(observed)==1 and all(observed[0][k]>0 for k in (\"plain_seconds\",\"observed_seconds\",\"ratio\")), observed; \
assert all(\"harness_ns_per_call\" not in r for r in b[\"results\"] if not r[\"stream\"].startswith(\"no-draw\"))' $0/bench.json && \
test $(wc -l < $0/history.jsonl) -eq 1 && grep -o '<path class=.track.' $0/bench-history.html | wc -l | grep -qx 4"
                 ${PROJECT_BINARY_DIR}/reports/bench $<TARGET_FILE:tidemark> ${PROJECT_SOURCE_DIR}/bench
                 $<TARGET_FILE:tidemark-vulkan-floor>)
set_tests_properties(Tidemark.Bench.EveryLaneReplaysBothStreamsExactly PROPERTIES LABELS bench)
add_test(NAME Tidemark.Bench.AHistoryLineThatIsNotJsonIsBadInput
         COMMAND bash -c "mkdir -p $0 && printf '{\"format\": \"tidemark-bench\", \"version\": 1, \"label\": \"\", \"date\": \"2026-12-01T00:00:00Z\", \"floor\": null, \"results\": []}\\nnot json\\n' > $0/history.jsonl && \
${PROJECT_SOURCE_DIR}/scripts/expect-exit 2 'history.jsonl:2:1: expected one night.s bench results as JSON, found .not json.' \
$1 bench $2 --repeat 1 --report $0 --history $0/history.jsonl"
                 ${PROJECT_BINARY_DIR}/reports/bench-bad-history $<TARGET_FILE:tidemark>
                 ${PROJECT_SOURCE_DIR}/bench/no-draw-respecify-100000.yaml)
set_tests_properties(Tidemark.Bench.AHistoryLineThatIsNotJsonIsBadInput PROPERTIES LABELS "bench;cli")

# Tidemark's replay beside GFXReconstruct's and apitrace's on captures of the same run: every
# lane on both APIs, and the floor, give a time and a peak for both sides (no timing asserted).
find_program(GFXRECON_REPLAY gfxrecon-replay)
find_program(APITRACE apitrace)
find_program(EGLRETRACE eglretrace)
if(GFXRECON_REPLAY AND APITRACE AND EGLRETRACE)
  add_test(NAME Tidemark.Bench.ReplayersCompareOnCapturesOfTheSameRun
           COMMAND bash -c "rm -rf $0 && $1 $2 --runs 1 --out $0 --stream $3 >/dev/null && \
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))[\"streams\"]; assert len(r)==1, r; s=r[0]; \
lanes=[\"monolith\",\"split\",\"spawn\",\"tcp\"]; \
assert all(sorted(s[api])==sorted(lanes) for api in (\"vulkan\",\"gl\")), s; \
pairs=[s[api][l] for api in (\"vulkan\",\"gl\") for l in lanes]+[s[\"floor\"],s[\"floor_draw\"]]; \
assert all(p[\"a_wall_s\"]>0 and p[\"b_wall_s\"]>0 and p[\"wall_ratio\"]>0 and p[\"rss_ratio\"]>0 for p in pairs), pairs' $0/replayers.json && \
grep -q '| no-draw-respecify-2000 | gl | tcp |' $0/replayers.md"
                   ${PROJECT_BINARY_DIR}/reports/replayers ${PROJECT_SOURCE_DIR}/scripts/compare-replayers
                   $<TARGET_FILE:tidemark> ${testdata}/bench/no-draw-respecify-2000.yaml)
  set_tests_properties(Tidemark.Bench.ReplayersCompareOnCapturesOfTheSameRun PROPERTIES
                       LABELS "bench;gfxrecon;zink" TIMEOUT 120)
else()
  message(STATUS "no gfxrecon-replay, apitrace or eglretrace: the replayers comparison test is not registered")
endif()
