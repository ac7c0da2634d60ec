import ArgumentParsing
import ContinueService
import DeepLinkRouter
import SearchSession

#if canImport(Glibc)
    import Glibc
#endif

/// Builds the search engine, session store and router that `serve` (and in-process client
/// commands) run on, from flags, environment and the bundled demo.
struct ServiceSetup {
    let sessions: SearchSessions
    let router: Router
    /// With `--store redis://…`: this instance's copy of the catalog shared through Redis, which
    /// takes the catalog writes; otherwise the engine takes them, logged in the state directory.
    let replica: CatalogReplica?
    /// Where catalog writes go.
    var catalogWriter: any CatalogWriter { replica ?? sessions.engine }
    /// The catalog file, for reloads.
    let catalogPath: String
    /// How often `serve` deletes expired sessions.
    let purgeInterval: Duration
    let description: String

    /// A setup failure: the message names the file or setting at fault.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Loads everything.
    ///
    /// - Parameter onCatalogServingChange: With a Redis store, called when this instance starts or
    ///   stops being caught up with the shared catalog (it is not, until it first is).
    static func load(
        _ settings: Settings, store storeChoice: String? = nil,
        onCatalogServingChange: @escaping @Sendable (Bool) -> Void = { _ in }
    ) throws -> ServiceSetup {
        let demo = DemoData.directory()
        guard let givenCatalogPath = try settings.value(ServeOptions.catalog) ?? demo.map({ $0 + "/catalog.jsonl" })
        else {
            throw Failure(description: "no --catalog given and the bundled demo (Examples/demo) was not found")
        }
        guard let routesPath = try settings.value(ServeOptions.routes) ?? demo.map({ $0 + "/routes.json" }) else {
            throw Failure(description: "no --routes given and the bundled demo (Examples/demo) was not found")
        }

        let table: RouteTable
        do {
            table = try RouteTable(contentsOfFile: routesPath)
        } catch {
            throw Failure(description: "routes \(routesPath): \(error)")
        }
        let router = Router(table: table)

        var fixedDay: CalendarDay?
        if let text = try settings.value(ServeOptions.today) {
            guard let day = CalendarDay(text) else {
                throw Failure(description: "--today must be a date written YYYY-MM-DD (got '\(text)')")
            }
            fixedDay = day
        }

        let choice = try storeChoice ?? settings.value(ServeOptions.store)
        let store = try makeStore(choice)
        // `memory` keeps nothing across restarts, catalog writes included; Redis keeps them for
        // every instance (each follows the shared log into an index of its own, in a temporary
        // directory); the other stores make catalog writes durable in the state directory before
        // they are acknowledged, and keep the index there, so a restart maps it instead of
        // parsing the catalog.
        let log: CatalogLog?
        let index: IndexDirectory
        var writes = "catalog writes in memory"
        // Where a dated copy of the demo catalog goes: beside durable state, else in the user's
        // cache directory (the copy's bytes depend only on the year, so it is reused).
        let demoCopyDirectory: () throws -> String
        if choice == "memory" {
            log = nil
            index = IndexDirectory.temporary()
            demoCopyDirectory = cacheDirectory
        } else if let redis = store.redis {
            log = nil
            index = IndexDirectory.temporary()
            demoCopyDirectory = cacheDirectory
            writes = "catalog writes shared through Redis \(redis)"
        } else {
            let directory = try stateDirectory(settings)
            do {
                log = try CatalogLog(path: directory + "/catalog-log.sqlite")
                index = try IndexDirectory(path: directory + "/index")
            } catch {
                throw Failure(description: "state directory \(directory): \(error.message)")
            }
            writes = "catalog writes logged in \(directory)/catalog-log.sqlite"
            demoCopyDirectory = { directory }
        }
        // The bundled demo is served dated for this year (see DemoCatalogDates).
        let catalogPath: String
        do {
            catalogPath = try DemoCatalogDates.servedPath(
                for: givenCatalogPath, demoDirectory: demo,
                today: fixedDay ?? CalendarDay(unixMs: SearchEngine.systemNowMs()), copyInto: demoCopyDirectory)
        } catch {
            throw Failure(description: "catalog \(givenCatalogPath): cannot write its dated copy: \(error)")
        }
        let engine: SearchEngine
        let opening: CatalogOpening
        do {
            let display = CatalogProgressDisplay(path: catalogPath)
            (engine, opening) = try SearchEngine.open(
                catalogAt: catalogPath, log: log, index: index, progress: display.report)
        } catch {
            throw Failure(description: "catalog \(catalogPath): \(error.message)")
        }
        engine.fixToday(fixedDay)
        for lineError in opening.badLines {
            writeError("warning: \(catalogPath): \(lineError)")
        }
        let missing = router.missingRoutes(forEntityTypes: opening.entityTypes)
        if !missing.isEmpty {
            writeError(
                "warning: \(routesPath) has no open route for entity types \(missing.joined(separator: ", ")); "
                    + "their entities are left out of results unless their own catalog link resolves through it")
        }
        let source =
            opening.reusedIndex
            ? "index mapped from the state directory"
                + (opening.readCatalogFile ? "" : " (the file unchanged since, by its stamp: not read)")
                + ", \(opening.replayedChanges) logged writes replayed"
            : "index built from the file"
        let summary =
            "catalog \(catalogPath) (\(opening.entities) entities, \(opening.badLines.count) bad lines, \(source), "
            + "version \(engine.snapshot.version)), routes \(routesPath), sessions \(store.1), \(writes)"
        let timeToLive = Duration.seconds(try settings.value(ServeOptions.sessionTimeToLive))
        let purgeInterval = Duration.seconds(try settings.value(ServeOptions.purgeInterval))
        // The replica starts following the shared log now, behind this start.
        let replica = store.redis.map {
            CatalogReplica(engine: engine, address: $0, onServingChange: onCatalogServingChange)
        }
        return ServiceSetup(
            sessions: SearchSessions(engine: engine, store: store.0, timeToLive: timeToLive), router: router,
            replica: replica, catalogPath: catalogPath, purgeInterval: purgeInterval, description: summary)

        func makeStore(_ choice: String) throws -> (any SessionStore, String, redis: RedisAddress?) {
            if choice == "memory" {
                let capacity = try settings.value(ServeOptions.maxSessions)
                return (InMemorySessionStore(capacity: capacity), "in memory (at most \(capacity))", nil)
            }
            if choice.hasPrefix("redis://") || choice.hasPrefix("redis+unix://") {
                do {
                    // No connection yet: Redis may come up after us; until then Capture and
                    // Search answer UNAVAILABLE and Query works.
                    let address = try RedisAddress(parsing: choice)
                    return (RedisSessionStore(address: address), "Redis \(address)", address)
                } catch {
                    throw Failure(description: "--store: \(error.message)")
                }
            }
            let path: String
            if choice == "sqlite" {
                path = try stateDirectory(settings) + "/sessions.sqlite"
            } else if choice.hasPrefix("sqlite:") {
                path = String(choice.dropFirst("sqlite:".count))
            } else {
                throw Failure(
                    description:
                        "--store must be memory, sqlite, sqlite:PATH or redis://HOST:PORT[/DB] (got '\(choice)')")
            }
            do {
                return (try SQLiteSessionStore(path: path), "SQLite \(path)", nil)
            } catch {
                throw Failure(description: "session store \(path): \(error.message)")
            }
        }
    }

    /// `$XDG_CACHE_HOME/vi-continue`, else `$HOME/.cache/vi-continue`, else `.vi-continue/cache`;
    /// created if missing.
    static func cacheDirectory() throws -> String {
        if let cache = Settings.environment("XDG_CACHE_HOME") { return try makeDirectory(cache + "/vi-continue") }
        if let home = Settings.environment("HOME") { return try makeDirectory(home + "/.cache/vi-continue") }
        return try makeDirectory(".vi-continue/cache")
    }

    /// `--state-dir`, else `$XDG_STATE_HOME/vi-continue`, else `.vi-continue`; created if missing.
    static func stateDirectory(_ settings: Settings) throws -> String {
        try makeDirectory(
            settings.value(ServeOptions.stateDirectory)
                ?? Settings.environment("XDG_STATE_HOME").map { $0 + "/vi-continue" } ?? ".vi-continue")
    }

    /// Creates `directory` and its parents (mode 0700) where missing, and returns it.
    private static func makeDirectory(_ directory: String) throws -> String {
        var path = ""
        for (index, component) in directory.split(separator: "/", omittingEmptySubsequences: false).enumerated() {
            path = index == 0 ? String(component) : path + "/" + component
            if path.isEmpty { continue }
            if mkdir(path, 0o700) != 0, errno != EEXIST {
                throw Failure(
                    description: "cannot create directory \(directory): \(String(cString: strerror(errno)))")
            }
        }
        return directory
    }
}
