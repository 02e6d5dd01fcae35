# Every dependency comes from Debian packages (scripts/setup.sh installs them); nothing is downloaded.
find_package(Boost 1.74 REQUIRED)            # Boost.Graph is header-only
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Threads REQUIRED)
find_package(SQLite3 REQUIRED)             # the result store (core/store), C API
# toml++: Debian ships a shared library, but we compile its implementation into gpusched_core
# (TOML_IMPLEMENTATION in core/toml_support.cpp) so gpusched-live needs no extra shared library.
find_path(TOMLPLUSPLUS_INCLUDE_DIR toml++/toml.h REQUIRED)
