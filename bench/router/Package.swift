// swift-tools-version:6.1
import PackageDescription

// The router benchmark: its own package so the root package keeps no benchmark targets.
let package = Package(
    name: "router-bench",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "vi-continue", path: "../..")],
    targets: [
        .target(name: "CAllocCounter"),
        .executableTarget(
            name: "RouterBench",
            dependencies: ["CAllocCounter", .product(name: "DeepLinkRouter", package: "vi-continue")],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
                .enableUpcomingFeature("MemberImportVisibility"),
                // vi-continue's release modules are built for the static Swift runtime.
                .unsafeFlags(["-static-stdlib"], .when(configuration: .release)),
            ],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]),
    ]
)
