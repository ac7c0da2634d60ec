import DeepLinkRouter
import Foundation
import SearchSession
import Testing

/// The bundled demo catalog and route table belong together.
@Suite struct DemoDataTests {
    @Test("every demo entity has an open route, and its link resolves back to it")
    func everyEntityLinksAndResolvesBack() throws {
        let catalog = try CatalogLoader.load(path: DemoService.directory + "/catalog.jsonl")
        let router = Router(table: try RouteTable(contentsOfFile: DemoService.directory + "/routes.json"))
        #expect(catalog.errors.isEmpty)
        #expect(router.missingRoutes(forEntityTypes: Set(catalog.entities.map(\.type))).isEmpty)
        for entity in catalog.entities {
            let link = try router.link(entityType: entity.type, id: entity.id)
            let destination = try #require(router.resolve(url: link.canonicalURL).destination, "\(link)")
            #expect(destination.entity == EntityReference(type: entity.type, id: entity.id))
            #expect(!destination.isFallback)
            if let universal = link.universalURL {
                #expect(router.resolve(url: universal).destination?.entity == destination.entity)
            }
        }
    }

    @Test("at least 100 demo entities have a small committed image file, and every photo shows an album")
    func demoImagesAreThereAndSmall() throws {
        let catalog = try CatalogLoader.load(path: DemoService.directory + "/catalog.jsonl")
        let withImages = catalog.entities.filter { !$0.prints.isEmpty }
        #expect(withImages.count >= 100)
        let files = FileManager.default
        var bytes = 0
        for folder in ["images/albums", "photos"] {
            for name in try files.contentsOfDirectory(atPath: DemoService.directory + "/" + folder) {
                let attributes = try files.attributesOfItem(atPath: DemoService.directory + "/\(folder)/\(name)")
                bytes += (attributes[.size] as? Int) ?? 0
            }
        }
        #expect(bytes <= 8_000_000)
        let albums = Set(catalog.entities.filter { $0.type == "album" }.map(\.id))
        let photos = try files.contentsOfDirectory(atPath: DemoService.directory + "/photos")
        #expect(photos.count >= 10)
        for photo in photos { #expect(albums.contains(String(photo.split(separator: "--")[0])), "\(photo)") }
    }
}
