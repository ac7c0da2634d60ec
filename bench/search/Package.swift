// swift-tools-version:6.1
import PackageDescription

// The in-process search benchmark: a dependency-free release executable over SearchSession.
let package = Package(
    name: "search-bench",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "vi-continue", path: "../..")],
    targets: [
        .executableTarget(
            name: "search-bench",
            dependencies: [.product(name: "SearchSession", package: "vi-continue")],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                // vi-continue's release modules are built for the static Swift runtime.
                .unsafeFlags(["-static-stdlib"], .when(configuration: .release)),
            ],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))])
    ]
)
