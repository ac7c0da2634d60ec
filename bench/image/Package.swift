// swift-tools-version:6.1
import PackageDescription

// The image-recall benchmark: a dependency-free release executable over SearchSession's built-in
// feature print, run by bench/image/run beside the imagehash peers.
let package = Package(
    name: "image-bench",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "vi-continue", path: "../..")],
    targets: [
        .executableTarget(
            name: "image-bench",
            dependencies: [.product(name: "SearchSession", package: "vi-continue")],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                // vi-continue's release modules are built for the static Swift runtime.
                .unsafeFlags(["-static-stdlib"], .when(configuration: .release)),
            ],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))])
    ]
)
