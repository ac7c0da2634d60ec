internal import Glibc

enum SystemInfo {
    static var processorCount: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}
