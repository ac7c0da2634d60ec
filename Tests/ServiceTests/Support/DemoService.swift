import ContinueService
import DeepLinkRouter
import Foundation
import SearchSession
import ServeTestSupport
import WireProtocol

/// The service on the bundled demo catalog and route table, with sessions in memory; TCP clients
/// write to its catalog with ``writerMetadata``.
enum DemoService {
    static let directory = PythonPeer.repositoryRoot.appendingPathComponent("Examples/demo").path
    static let writeToken = try! WriteToken("demo-service-test-token")

    /// The credentials a TCP client sends to change the catalog.
    static var writerMetadata: Metadata { ["authorization": "Bearer demo-service-test-token"] }

    static func make() throws -> VisualSearchService {
        let catalog = try CatalogLoader.load(path: directory + "/catalog.jsonl")
        let table = try RouteTable(contentsOfFile: directory + "/routes.json")
        let engine = SearchEngine(catalog: catalog)
        // Pinned, so answers listing upcoming concerts do not change with the date the tests run.
        engine.fixToday(CalendarDay(pinnedToday))
        let sessions = SearchSessions(engine: engine, store: InMemorySessionStore())
        return VisualSearchService(
            sessions: sessions, router: Router(table: table), writeGuard: WriteGuard(token: writeToken))
    }
}
