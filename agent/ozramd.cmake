# The offload ring's userspace half: the transports (a library shared with
# ozram-ringload and the tests) and the ozramd daemon.
set(OZRAM_SHARED_INCLUDE ${PROJECT_SOURCE_DIR}/shared)

add_library(ozram_ring STATIC
  ${CMAKE_CURRENT_LIST_DIR}/src/ring/agent_queues.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/ring/kernel_ring.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/ring/ring_producer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/ring/ring_view.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/ring/shm_ring.cpp
  # The kernel module's slot rules, the same file ozram.ko is built from.
  ${PROJECT_SOURCE_DIR}/kmod/ozram_ring_slots.c)
target_include_directories(ozram_ring PUBLIC
  ${CMAKE_CURRENT_LIST_DIR}/src/ring ${CMAKE_CURRENT_LIST_DIR}/include ${OZRAM_SHARED_INCLUDE})
# The kernel types that ozram_ring_slots.c uses, for its own sources only.
target_include_directories(ozram_ring PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/ring/kshim ${PROJECT_SOURCE_DIR}/kmod)
# Boost.Interprocess is header-only; POSIX shared memory needs librt; the
# slot rules check an LZ4 result with the module's LZ4 check, and the
# producers decode the other formats with the libraries.
target_link_libraries(ozram_ring PUBLIC Threads::Threads rt lz4_static ozram_lz4_verify)

# The module's LZ4 check, the same file ozram.ko is built from, for the
# tests and ozram-bench.  On x86 it is built as the kernel builds it, at -O2
# and without the SIMD registers, so that a bench times the module's code.
add_library(ozram_lz4_verify STATIC ${PROJECT_SOURCE_DIR}/kmod/ozram_lz4_verify.c)
target_include_directories(ozram_lz4_verify PUBLIC ${PROJECT_SOURCE_DIR}/kmod)
target_include_directories(ozram_lz4_verify PRIVATE ${CMAKE_CURRENT_LIST_DIR}/src/ring/kshim)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  target_compile_options(ozram_lz4_verify PRIVATE -O2 -mno-sse -mno-mmx -mno-sse2 -mno-avx)
endif()

# The daemon as a library, so that the tests drive its loop in-process.
add_library(ozramd_core STATIC
  ${CMAKE_CURRENT_LIST_DIR}/src/daemon/agent_metrics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/daemon/compressor_set.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/daemon/config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/daemon/cost_model_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/daemon/doorbell.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/daemon/drain_loop.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/daemon/log.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/daemon/metrics_http.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/daemon/metrics_listen.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/daemon/metrics_server.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/daemon/options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/daemon/process.cpp)
target_include_directories(ozramd_core PUBLIC ${CMAKE_CURRENT_LIST_DIR}/src/daemon)
# libsystemd for the sockets systemd passes (sd_listen_fds): the metrics
# endpoint under ozramd.service, whose sandbox allows no network socket.
pkg_check_modules(OZRAM_LIBSYSTEMD REQUIRED IMPORTED_TARGET libsystemd)
target_link_libraries(ozramd_core PUBLIC ozram_ring ozram_core ozram_cli ozram_metrics
                                         PkgConfig::OZRAM_LIBSYSTEMD)

add_executable(ozramd ${CMAKE_CURRENT_LIST_DIR}/src/daemon/main.cpp)
target_compile_definitions(ozramd PRIVATE OZRAM_VERSION="${PROJECT_VERSION}")
target_link_libraries(ozramd PRIVATE ozramd_core)
install(TARGETS ozramd RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR})

# --- ozramd link options ------------------------------------------------
# libstdc++ and libgcc are linked in (liblz4 and the CUDA runtime are static
# libraries already); glibc stays dynamic.  A fully static binary could not
# load the GPU driver: the CUDA runtime dlopen()s libcuda.so.1, and glibc's
# dlopen in a static program needs the very glibc it was linked with.  The
# VM tests copy ozramd with the libraries ldd lists (tests/vm/run).
target_link_options(ozramd PRIVATE -static-libstdc++ -static-libgcc)
# --- end ozramd link options --------------------------------------------
