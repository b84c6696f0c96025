# cmake/StepcastInstall.cmake: what `cmake --install` puts where, and the
# Debian package CPack makes of it (`cpack -G DEB` in the build directory, or
# `cmake --build build --target package`).
#
#   PREFIX/bin/stepcast                          the CLI (libstepcast linked in)
#   PREFIX/LIBDIR/libstepcast.so.0 (.so, .a)     the library
#   PREFIX/include/stepcast/{stepcast,status}.h  the public API
#   PREFIX/LIBDIR/pkgconfig/stepcast.pc          pkg-config stepcast
#   PREFIX/LIBDIR/cmake/stepcast/                find_package(stepcast)
#   PREFIX/share/stepcast/configs/               the catalogue
#   PREFIX/share/stepcast/scenarios/             example scenarios
#   PREFIX/share/stepcast/validation/            public validation data
#   PREFIX/share/stepcast/regress/               regression baselines
#   PREFIX/share/man/man1/stepcast*.1            one page per command
#   PREFIX/share/doc/stepcast/                   README.md
#
# The binary and the library find share/stepcast from their own location
# (sim/config/datadir.h), so the tree can be installed under any prefix.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS stepcast RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS stepcast_shared stepcast_lib
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES include/stepcast/stepcast.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/stepcast)
install(FILES models/status.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/stepcast)

# pkg-config: relocatable (prefix from ${pcfiledir}).
file(RELATIVE_PATH STEPCAST_PC_UP /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" STEPCAST_PC_UP "${STEPCAST_PC_UP}")
configure_file(cmake/stepcast.pc.in ${CMAKE_BINARY_DIR}/stepcast.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/stepcast.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# CMake package.
set(STEPCAST_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/stepcast)
configure_package_config_file(cmake/stepcastConfig.cmake.in ${CMAKE_BINARY_DIR}/stepcastConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/stepcast
  PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR STEPCAST_INSTALL_DATADIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/stepcastConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/stepcastConfig.cmake ${CMAKE_BINARY_DIR}/stepcastConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/stepcast)

# Data: the layout BUILD/share/stepcast has in the build tree.
install(DIRECTORY configs/ DESTINATION ${STEPCAST_INSTALL_DATADIR}/configs)
install(DIRECTORY scenarios/ DESTINATION ${STEPCAST_INSTALL_DATADIR}/scenarios)
install(DIRECTORY tests/validation/data/ DESTINATION ${STEPCAST_INSTALL_DATADIR}/validation)
install(FILES tests/regress/baselines.json DESTINATION ${STEPCAST_INSTALL_DATADIR}/regress)
install(DIRECTORY tests/regress/scenarios/ DESTINATION ${STEPCAST_INSTALL_DATADIR}/regress/scenarios)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Manual pages, generated from --help (scripts/gen-man) after each build of
# the binary.
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/man/man1/stepcast.1
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${CMAKE_BINARY_DIR}/man/man1
  COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/gen-man $<TARGET_FILE:stepcast> ${CMAKE_BINARY_DIR}/man/man1
  DEPENDS stepcast ${PROJECT_SOURCE_DIR}/scripts/gen-man
  COMMENT "Generating the manual pages from stepcast --help"
  VERBATIM)
add_custom_target(stepcast_man ALL DEPENDS ${CMAKE_BINARY_DIR}/man/man1/stepcast.1)
install(DIRECTORY ${CMAKE_BINARY_DIR}/man/man1 DESTINATION ${CMAKE_INSTALL_MANDIR})

# Debian package: stepcast_VERSION_ARCH.deb, for Debian 12 (bookworm).  The
# runtime dependencies are declared by their Debian 12 names and the
# versions dpkg-shlibdeps computes for bin/stepcast and libstepcast.so on
# Debian 12 (SimGrid 3.32, cJSON, GSL 2.7, the C++ runtime); a fresh
# `apt-get install ./stepcast_*.deb` pulls them in.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME stepcast)
set(CPACK_PACKAGE_VENDOR "stepcast")
set(CPACK_PACKAGE_CONTACT "stepcast maintainers <stepcast@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "predict step time, memory, bottleneck and cost of foundation-model training on GPU clusters")
set(CPACK_PACKAGE_DESCRIPTION
  "stepcast predicts one training (or serving) step of a foundation model on a GPU cluster\n(AWS P5/P6: H100, H200, B200, B300, GB200; NVLink; EFA) with an analytical engine and a\nSimGrid discrete-event engine, searches parallel layouts, plans clusters and cost, and\nvalidates against published runs.  Includes libstepcast (C API, pkg-config, CMake package).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
  "libc6 (>= 2.34), libcjson1 (>= 1.7.13), libgsl27 (>= 2.7.1), libgslcblas0 (>= 2.7.1), libsimgrid3.32 (>= 3.32), libstdc++6 (>= 5.2)")
# A static link of libstepcast.a (pkg-config --static) needs the -dev files.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "pkg-config, libcjson-dev, libgsl-dev, libsimgrid-dev")
# shlibs control file and the ldconfig trigger for libstepcast.so.0.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# Debian ships stripped binaries (the build tree keeps its debug info).
set(CPACK_STRIP_FILES ON)
include(CPack)
