import DeepLinkRouter
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
}
