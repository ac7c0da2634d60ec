// swift-tools-version:6.1
import PackageDescription

// The fuzz targets, apart from the main package because they only link with
// `-sanitize=fuzzer` (libFuzzer supplies the coverage hooks). Build and run with `scripts/fuzz`.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "vi-continue-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "vi-continue", path: "..")],
    targets: [
        .executableTarget(
            name: "FuzzTargets",
            dependencies: [
                .product(name: "SearchAPI", package: "vi-continue"),
                .product(name: "WireProtocol", package: "vi-continue"),
                .product(name: "DeepLinkRouter", package: "vi-continue"),
                .product(name: "SearchSession", package: "vi-continue"),
                .product(name: "ContinueService", package: "vi-continue"),
                .product(name: "HTTP1", package: "vi-continue"),
            ],
            swiftSettings: swiftSettings)
    ]
)
