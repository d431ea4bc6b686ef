# Driver builds side by side (drivers.yaml, scripts/driver-prefix, tidemark --driver): the portable
# group on the system's Mesa 22.3.6 and the backports' 25.0.7 in all four lanes, and a mixed stack
# refused. The first run fetches 25.0.7's packages (21 MB) into the build folder. CI's slice is
# two of the group's scenarios (DRIVER_BUILDS_SCOPE=ci); the nightly runs the whole group, and
# the whole set of Zink scenarios, on both builds.
set(mesa_prefix ${PROJECT_BINARY_DIR}/drivers/mesa-25.0.7)
set(banded each-band-draws-the-colour-its-store-held-when-it-was-drawn)
# Mesa 25.0.7 unpacked once, before the tests that use it (two of them fetching at once would share a folder).
add_test(NAME Tidemark.Drivers.Mesa25IsUnpackedBesideTheBuild
         COMMAND bash -c "grep -qs VIRGL_DISABLE_MT $1/driver.yaml || $0 25.0.7 $1 >/dev/null"
                 ${PROJECT_SOURCE_DIR}/scripts/driver-prefix ${mesa_prefix})
set_tests_properties(Tidemark.Drivers.Mesa25IsUnpackedBesideTheBuild PROPERTIES LABELS "drivers" FIXTURES_SETUP mesa25)
add_test(NAME Tidemark.Drivers.ThePortableGroupRunsOnTwoMesaBuildsAndAMixedStackIsRefused
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/driver-builds ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(Tidemark.Drivers.ThePortableGroupRunsOnTwoMesaBuildsAndAMixedStackIsRefused
                     PROPERTIES LABELS "drivers;zink" COST 40 FIXTURES_REQUIRED mesa25 ENVIRONMENT "DRIVER_BUILDS_SCOPE=ci")
# A driver with a server (harness/renderer): virglrenderer's virgl_test_server started with the
# Tidemark layer beneath its Vulkan device, Zink on lavapipe under it, and Mesa 25.0.7's virpipe
# client (the first that names its socket) in another process; the server's renderer counted
# and nothing of the server left afterwards.
add_test(NAME Tidemark.Servers.VirglCountsAClientsRespecifiesBeneathTheServer COMMAND renderer_virgl_tests)
set_tests_properties(Tidemark.Servers.VirglCountsAClientsRespecifiesBeneathTheServer PROPERTIES
                     LABELS "drivers;zink;virgl" FIXTURES_REQUIRED mesa25
                     ENVIRONMENT "TIDEMARK_MESA_PREFIX=${mesa_prefix};TIDEMARK_GL_RESPECIFY=$<TARGET_FILE:tidemark-gl-respecify>;TIDEMARK_LAYER_DIR=${PROJECT_BINARY_DIR}/layer;XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime")
if(TIDEMARK_SANITIZED)
  set_property(TEST Tidemark.Drivers.ThePortableGroupRunsOnTwoMesaBuildsAndAMixedStackIsRefused APPEND PROPERTY
               ENVIRONMENT "TIDEMARK_SANITIZED=1")
endif()
# Bad drivers: a name the file lacks, and a drivers file that is not there, are bad input.
add_test(NAME Tidemark.Drivers.ABuildTheFileDoesNotNameIsBadInput
         COMMAND ${expect_exit} 2 "--driver: expected a build of .*drivers.yaml \\(mesa-22.3.6, virgl-zink-22.3.6\\), found 'mesa-1.0'"
                 $<TARGET_FILE:tidemark> --drivers ${PROJECT_SOURCE_DIR}/drivers.yaml --driver mesa-1.0 backends)
add_test(NAME Tidemark.Drivers.AMissingDriversFileIsBadInput
         COMMAND ${expect_exit} 2 "no-such-drivers.yaml" $<TARGET_FILE:tidemark> --drivers no-such-drivers.yaml --driver x backends)
set_tests_properties(Tidemark.Drivers.ABuildTheFileDoesNotNameIsBadInput Tidemark.Drivers.AMissingDriversFileIsBadInput
                     PROPERTIES LABELS "cli;drivers")
# observe on a build with a server (driver-prefix's virgl-zink-25.0.7): the server started with
# the layer beneath it, the program pointed at it, both sides in one observation (the client
# made no device, the server's renderer its VkBuffers), and no server left; a backend refuses
# such a build, naming it, rather than run without its server.
add_test(NAME Tidemark.Servers.ObserveSeesBothSidesOfTheVirglStack
         COMMAND bash -c "set -e; rm -rf $2; mkdir -p $(dirname $2); $0 --drivers $1/driver.yaml --driver virgl-zink-25.0.7 observe --report $2 -- $3 --rounds 200 --size 256 >$2.log 2>&1 || { cat $2.log; exit 1; }; \
grep -qF \"no-device: $3\" $2.log && grep -q 'vulkan: virgl_test_server --no-loop-or-fork' $2.log && grep -qE '^  buffers +0 +[0-9]+ +[0-9]+' $2.log || { cat $2.log; exit 1; }; \
test -f $2/trace.pftrace; server=$(sed -n 's/^pid \\([0-9]*\\) .* virgl_test_server .*/\\1/p' $2.log); test -n \"$server\"; \\
! grep -qs '(virgl_test_serv) [RSD]' /proc/$server/stat"
                 $<TARGET_FILE:tidemark> ${mesa_prefix} ${PROJECT_BINARY_DIR}/reports/observe-virgl $<TARGET_FILE:tidemark-gl-respecify>)
# Debian 12's own virgl client (22.3.6) always connects to /tmp/.virgl_test: two runs at once each
# reach a server of their own (the client's connect() redirected), and nothing is made at the
# fixed path.
add_test(NAME Tidemark.Servers.TwoRunsOnDebiansVirglStackEachReachTheirOwnServer
         COMMAND bash -c "set -e; rm -rf $2-1 $2-2; mkdir -p $(dirname $2); for k in 1 2; do $0 --drivers $1 --driver virgl-zink-22.3.6 observe --report $2-$k -- $3 --rounds 300 --size 256 >$2-$k.log 2>&1 & pids+=($!); done; \
wait \${pids[0]} && wait \${pids[1]} || { cat $2-1.log $2-2.log; exit 1; }; \
for k in 1 2; do grep -q 'vulkan: virgl_test_server --no-loop-or-fork' $2-$k.log || { cat $2-$k.log; exit 1; }; done; \
test ! -e /tmp/.virgl_test"
                 $<TARGET_FILE:tidemark> ${PROJECT_SOURCE_DIR}/drivers.yaml ${PROJECT_BINARY_DIR}/reports/observe-virgl-22 $<TARGET_FILE:tidemark-gl-respecify>)
set_tests_properties(Tidemark.Servers.TwoRunsOnDebiansVirglStackEachReachTheirOwnServer PROPERTIES
                     LABELS "drivers;zink;virgl" ENVIRONMENT "XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime")
# The portable group on Debian 12's own virgl stack, CI's two lanes and the nightly's four: cases
# (tests/cases/servers).
# On the virgl column, cases (tests/cases/servers), registered on a build with mutants: red-once
# proving each check (CI's slice, the nightly's, the banded pixels on every GL driver), the kernel
# driver's scenes, and `run --baseline` with a layer fault in the server red against it.
# A renderer server killed mid-run (SIGKILL at its 3 000th call, read from its status file) is a
# verdict naming its signal, the last wire command and the client's error; the next scenario
# runs green on a fresh server (scripts/testing/virgl-server-killed: it kills the server while the
# run goes on). One its layer ends, in the spawn and monolith lanes: a case (tests/cases/servers).
add_test(NAME Tidemark.Servers.AServerKilledMidRunIsAVerdictAndTheNextRunGetsAFreshOne
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/virgl-server-killed ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(Tidemark.Servers.AServerKilledMidRunIsAVerdictAndTheNextRunGetsAFreshOne PROPERTIES
                     LABELS "drivers;zink;virgl")
# Both sides are held to the build: a server whose renderer makes no Vulkan device (llvmpipe) is
# refused naming the client's renderer and the server; a server on another Vulkan driver than the
# build names is refused naming the layer beneath the server.
set(virgl_bad ${PROJECT_BINARY_DIR}/virgl-bad-builds.yaml)
file(WRITE ${virgl_bad} "- name: virgl-on-llvmpipe
  environment: {GALLIUM_DRIVER: virpipe, LIBGL_ALWAYS_SOFTWARE: '1'}
  server:
    command: [virgl_test_server, --no-loop-or-fork, --use-egl-surfaceless, --use-gles, '--socket-path={socket}']
    environment: {GALLIUM_DRIVER: llvmpipe, LIBGL_ALWAYS_SOFTWARE: '1', VIRGL_DISABLE_MT: '1'}
    client_socket: /tmp/.virgl_test
  identity: {gl_renderer: '^virgl'}
- name: virgl-on-mesa-99
  environment: {GALLIUM_DRIVER: virpipe, LIBGL_ALWAYS_SOFTWARE: '1'}
  server:
    command: [virgl_test_server, --no-loop-or-fork, --use-egl-surfaceless, --use-gles, '--socket-path={socket}']
    environment: {GALLIUM_DRIVER: zink, LIBGL_ALWAYS_SOFTWARE: '1', VIRGL_DISABLE_MT: '1'}
    client_socket: /tmp/.virgl_test
  identity: {gl_renderer: '^virgl \\(zink', vulkan_driver: '^llvmpipe Mesa 99'}
")
add_test(NAME Tidemark.Servers.AServerWithNoVulkanDeviceUnderTheLayerIsRefusedNamingBothSides
         COMMAND ${expect_exit} 3 "expected the server's Vulkan device under the Tidemark layer, found none: the client's renderer is 'virgl \\(LLVMPIPE.*its server virgl_test_server .*\\(pid [0-9]+\\) made no VkImage"
                 $<TARGET_FILE:tidemark> --drivers ${virgl_bad} --driver virgl-on-llvmpipe run
                 ${PROJECT_SOURCE_DIR}/scenarios/portable/${banded}.yaml --backend gl --report ${PROJECT_BINARY_DIR}/reports/virgl-llvmpipe)
add_test(NAME Tidemark.Servers.TheServersVulkanDriverIsHeldToTheBuild
         COMMAND ${expect_exit} 3 "the Vulkan driver matching '\\^llvmpipe Mesa 99'; found .*the Vulkan driver 'llvmpipe Mesa 22.3.6 .*the layer beneath its server, virgl_test_server --no-loop-or-fork .*/server.sock \\(pid"
                 $<TARGET_FILE:tidemark> --drivers ${virgl_bad} --driver virgl-on-mesa-99 run
                 ${PROJECT_SOURCE_DIR}/scenarios/portable/${banded}.yaml --backend gl --report ${PROJECT_BINARY_DIR}/reports/virgl-mesa-99)
# The server's memory reaches the kernel model at the run's read-backs only: a GPU-memory step
# mid-run is refused on a build with a server, naming why (its kernel driver's steps run: the
# server's layer asks the kernel model live, over the kernel channel).
add_test(NAME Tidemark.Servers.AGpuMemoryStepMidRunIsRefusedOnABuildWithAServer
         COMMAND ${expect_exit} 2 "a-gpu-memory-sample-between-draws: its workload steps the kernel model's GPU memory mid-run; driver build 'virgl-zink-22.3.6' renders in its server"
                 $<TARGET_FILE:tidemark> --drivers ${PROJECT_SOURCE_DIR}/drivers.yaml --driver virgl-zink-22.3.6 run
                 ${PROJECT_SOURCE_DIR}/tests/testdata/servers/a-gpu-memory-step-mid-run.yaml --backend gl
                 --report ${PROJECT_BINARY_DIR}/reports/virgl-memory-step)
set_tests_properties(Tidemark.Servers.AGpuMemoryStepMidRunIsRefusedOnABuildWithAServer PROPERTIES
                     LABELS "drivers;zink;virgl;cli" ENVIRONMENT "XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime")
add_test(NAME Tidemark.Servers.TheReclaimModelDoesNotRunOnABuildWithAServer
         COMMAND ${expect_exit} 2 "backend 'vulkan' does not run a driver build's client with the layer beneath its driver: a build with a server runs on gl or gl-native"
                 $<TARGET_FILE:tidemark> --drivers ${PROJECT_SOURCE_DIR}/drivers.yaml --driver virgl-zink-22.3.6 run
                 ${PROJECT_SOURCE_DIR}/scenarios/portable/${banded}.yaml --backend vulkan --report ${PROJECT_BINARY_DIR}/reports/virgl-vulkan)
set_tests_properties(Tidemark.Servers.ObserveSeesBothSidesOfTheVirglStack PROPERTIES
                     LABELS "drivers;zink;virgl" FIXTURES_REQUIRED mesa25
                     ENVIRONMENT "XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime")
set_tests_properties(Tidemark.Servers.AServerWithNoVulkanDeviceUnderTheLayerIsRefusedNamingBothSides
                     Tidemark.Servers.TheServersVulkanDriverIsHeldToTheBuild
                     Tidemark.Servers.TheReclaimModelDoesNotRunOnABuildWithAServer
                     PROPERTIES LABELS "drivers;zink;virgl" ENVIRONMENT "XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime")
# A build's library_path reaches the driver, never Tidemark's own libraries (cmake/OwnLibraries.cmake):
# under a build whose folder holds a libfmt.so.9, libstdc++.so.6 and libc.so.6 that are no
# libraries (a bad libfmt.so.9 made tidemark exit 127), the system's Zink runs green in the spawn
# lane, its server started under the build as well.
set(shadowing ${PROJECT_BINARY_DIR}/shadowing-build)
foreach(library libfmt.so.9 libstdc++.so.6 libc.so.6)
  file(WRITE ${shadowing}/lib/${library} "not a shared object\n")
endforeach()
file(WRITE ${shadowing}/drivers.yaml "- name: shadowing\n  library_path: [lib]\n  identity: {gl_renderer: '^zink'}\n")
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/xdg-runtime)
add_test(NAME Tidemark.Drivers.ABuildsLibraryPathNeverShadowsTidemarksOwnLibraries
         COMMAND ${expect_exit} 0 "GREEN Magma.Spawn.Portable.${banded}@gl"
                 $<TARGET_FILE:tidemark> --drivers ${shadowing}/drivers.yaml --driver shadowing
                 run ${PROJECT_SOURCE_DIR}/scenarios/portable/${banded}.yaml --backend gl --lane spawn
                 --report ${PROJECT_BINARY_DIR}/reports/shadowing-build)
set_tests_properties(Tidemark.Drivers.ABuildsLibraryPathNeverShadowsTidemarksOwnLibraries PROPERTIES
                     LABELS "drivers;zink" ENVIRONMENT "XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime")

# --- issue 72: servers and their children ---
# A renderer server whose command leaves a daemon (forked twice, a session of its own), one whose
# daemon holds the kernel channel, and one that floods its log: cases (tests/cases/servers).

# A Vulkan-only driver build judged alike by run, compare and bisect: a case (tests/cases/drivers).
