# What `cmake --install` puts under a prefix, and the Debian package CPack makes of it
# (scripts/package). Everything is found relative to the installed tidemark: nothing installed
# names the build folder (tests/install.cmake greps the tree for it).
#   bin/tidemark, bin/tidemark-server
#   lib/tidemark/own/                links to the libraries the programs load at start (their DT_RPATH)
#   lib/tidemark/layer/              the layer and its manifest (tidemark looks in ../lib/tidemark/layer;
#                                    a user enables it by hand with VK_ADD_LAYER_PATH=<that folder>)
#   share/vulkan/explicit_layer.d/   the manifest again, for the loader's own search when the prefix is /usr
#   lib/cmake/Tidemark/              find_package(Tidemark): Tidemark::tidemark, Tidemark::tidemark-server,
#                                    tidemark_add_scenarios()
#   share/doc/tidemark/              the pages of docs/, the mutant catalogue, copyright, changelog
#   share/man/man1/                  tidemark.1, tidemark-server.1 (help2man, from --help)
include(CMakePackageConfigHelpers)

set(layer_install_dir lib/tidemark/layer)  # fixed, not CMAKE_INSTALL_LIBDIR: tidemark looks exactly here
install(TARGETS tidemark tidemark-server EXPORT TidemarkTargets RUNTIME DESTINATION bin)
# The links to the libraries the programs load at start, their DT_RPATH (cmake/OwnLibraries.cmake).
install(DIRECTORY ${PROJECT_BINARY_DIR}/tidemark-own-libraries/ DESTINATION lib/tidemark/own)
install(TARGETS VkLayer_tidemark_observe tidemark_socket_redirect tidemark_driver_clock LIBRARY DESTINATION ${layer_install_dir})
tidemark_layer_manifest(${PROJECT_BINARY_DIR}/install/layer/VkLayer_tidemark_observe.json
                        ./$<TARGET_FILE_NAME:VkLayer_tidemark_observe>)
tidemark_layer_manifest(${PROJECT_BINARY_DIR}/install/explicit_layer.d/VkLayer_tidemark_observe.json
                        ../../../${layer_install_dir}/$<TARGET_FILE_NAME:VkLayer_tidemark_observe>)
install(FILES ${PROJECT_BINARY_DIR}/install/layer/VkLayer_tidemark_observe.json DESTINATION ${layer_install_dir})
install(FILES ${PROJECT_BINARY_DIR}/install/explicit_layer.d/VkLayer_tidemark_observe.json
        DESTINATION share/vulkan/explicit_layer.d)

set(config_dir lib/cmake/Tidemark)
install(EXPORT TidemarkTargets NAMESPACE Tidemark:: DESTINATION ${config_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/TidemarkConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/install/TidemarkConfig.cmake INSTALL_DESTINATION ${config_dir})
# 1.x reads 1.x's scenarios, recordings and summaries: a project asking for 1.0 takes any 1.y.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/install/TidemarkConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/install/TidemarkConfig.cmake ${PROJECT_BINARY_DIR}/install/TidemarkConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/TidemarkScenarios.cmake
        DESTINATION ${config_dir})

file(GLOB doc_pages CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${doc_pages} DESTINATION share/doc/tidemark)
install(FILES ${PROJECT_SOURCE_DIR}/red_once/mutants.md DESTINATION share/doc/tidemark)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/copyright DESTINATION share/doc/tidemark)

# A manual page per program, made from its --help by help2man (the text has one home: the CLI's
# own options; a sanitizer build is not asked about leaks), and the Debian changelog, both
# compressed as Debian policy asks (gzip -n: no time stamp, so the package is the same on every
# build).
find_program(HELP2MAN help2man REQUIRED)
set(release_date_epoch 1796342400)  # 2026-12-04, the release's date (cmake/changelog): the pages' date
set(tidemark_whatis "deterministic replay and regression harness for GPU driver stacks")
set(tidemark-server_whatis "the server side of Tidemark's spawn and tcp lanes")
set(man_pages "")
foreach(program IN ITEMS tidemark tidemark-server)
  set(page ${PROJECT_BINARY_DIR}/install/${program}.1.gz)
  add_custom_command(OUTPUT ${page}
    COMMAND ${CMAKE_COMMAND} -E env SOURCE_DATE_EPOCH=${release_date_epoch} ASAN_OPTIONS=detect_leaks=0
            ${HELP2MAN} --no-info --name "${${program}_whatis}" --no-discard-stderr --section 1 --source "Tidemark ${PROJECT_VERSION}"
            --version-string "${PROJECT_VERSION}" --output ${program}.1 $<TARGET_FILE:${program}>
    COMMAND gzip -9nf ${program}.1
    DEPENDS ${program} WORKING_DIRECTORY ${PROJECT_BINARY_DIR}/install VERBATIM)
  list(APPEND man_pages ${page})
endforeach()
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/install/changelog.gz
  COMMAND gzip -9nc ${PROJECT_SOURCE_DIR}/cmake/changelog > ${PROJECT_BINARY_DIR}/install/changelog.gz
  DEPENDS ${PROJECT_SOURCE_DIR}/cmake/changelog VERBATIM)
add_custom_target(tidemark-install-docs ALL DEPENDS ${man_pages} ${PROJECT_BINARY_DIR}/install/changelog.gz)
install(FILES ${man_pages} DESTINATION share/man/man1)
install(FILES ${PROJECT_BINARY_DIR}/install/changelog.gz DESTINATION share/doc/tidemark)

# The Debian package: tidemark_<version>_amd64.deb, installed under /usr; Depends from the
# libraries the programs link (dpkg-shlibdeps) and Mesa's Vulkan driver, which every backend runs on.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tidemark)
set(CPACK_PACKAGE_VENDOR "Tidemark")
# A team that packages its own build names itself (-DTIDEMARK_PACKAGE_MAINTAINER=...).
set(TIDEMARK_PACKAGE_MAINTAINER "Tidemark maintainers <tidemark@example.org>" CACHE STRING "the .deb's Maintainer")
set(CPACK_PACKAGE_CONTACT "${TIDEMARK_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "deterministic replay and regression harness for GPU driver stacks")
set(CPACK_PACKAGE_DESCRIPTION [=[Tidemark runs scenarios written in YAML (buffer respecify and draw workloads,
GPU-memory tracepoints, counter streams, kernel-driver submissions) against a
backend on Vulkan or a real GL driver, a kernel model and a Perfetto tracer,
and checks gauges, pixels and trace contents in four lanes: direct,
in-process wire, spawned server and TCP server. Every check is proven by a
negative control that turns it red once.
.
This package holds tidemark and tidemark-server, the VK_LAYER_TIDEMARK_observe
Vulkan layer, and the CMake package that registers a project's scenarios as
CTest tests (find_package(Tidemark), tidemark_add_scenarios).]=])
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "mesa-vulkan-drivers")
set(CPACK_STRIP_FILES ON)
include(CPack)
