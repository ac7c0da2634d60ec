// swift-tools-version:6.1
import PackageDescription

// The exact vector scan benchmark: a dependency-free release executable over SearchSession's
// vector index (its Benchmarks SPI), run by bench/vector/run beside faiss.
let package = Package(
    name: "vector-bench",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "vi-continue", path: "../..")],
    targets: [
        .executableTarget(
            name: "vector-bench",
            dependencies: [.product(name: "SearchSession", package: "vi-continue")],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                // vi-continue's release modules are built for the static Swift runtime.
                .unsafeFlags(["-static-stdlib"], .when(configuration: .release)),
            ],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))])
    ]
)
