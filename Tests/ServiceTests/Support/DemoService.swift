import ContinueService
import DeepLinkRouter
import Foundation
import SearchSession

/// The service on the bundled demo catalog and route table, with sessions in memory.
enum DemoService {
    static let directory = PythonPeer.repositoryRoot.appendingPathComponent("Examples/demo").path

    static func make() throws -> VisualSearchService {
        let catalog = try CatalogLoader.load(path: directory + "/catalog.jsonl")
        let table = try RouteTable(contentsOfFile: directory + "/routes.json")
        let sessions = SearchSessions(engine: SearchEngine(catalog: catalog), store: InMemorySessionStore())
        return VisualSearchService(sessions: sessions, router: Router(table: table))
    }
}
