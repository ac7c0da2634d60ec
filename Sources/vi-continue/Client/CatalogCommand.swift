import ArgumentParsing
import SearchAPI

/// `vi-continue catalog import|upsert|delete`: live catalog updates on a server.
enum CatalogCommand {
    /// Entities per UpsertEntities call when importing: large enough to be quick, small enough
    /// that a batch of entities with prints stays far below the 64 MiB request limit.
    static let importBatchSize = 500

    static let importSpec = CommandSpec(
        name: "import",
        abstract: "Upsert every good line of a JSON Lines catalog file; report bad lines by number.",
        discussion: """
            Lines that cannot be read, and entities the server rejects, are listed with their line
            numbers; the other lines are applied (in batches of \(importBatchSize); a batch the server
            rejects for a bad entity is sent again one entity at a time). Synonym lines
            are skipped: they belong to a catalog file loaded by serve, not to the entity API.
            Exits 0 when every line was applied, 1 when some were not.

            EXAMPLES:
              vi-continue catalog import Examples/demo/catalog.jsonl
              vi-continue catalog import new-releases.jsonl --server 10.0.0.5:50051 --json
            """,
        options: ClientOptions.writer, flags: [ClientOptions.json],
        positionals: [PositionalSpec("FILE", help: "A catalog file, JSON Lines (- for stdin).")])

    static let upsertSpec = CommandSpec(
        name: "upsert",
        abstract: "Insert or replace the entities of a JSON Lines file in one call, all or nothing.",
        discussion: """
            Unlike import, a file with any bad line sends nothing (exit 2, every bad line listed),
            and an entity the server rejects rejects the whole file (exit 2, the server's reason
            names the entity by its position in the file's entities).

            EXAMPLES:
              vi-continue catalog upsert changed.jsonl
              echo '{"type":"album","id":"x","title":"X"}' | vi-continue catalog upsert - --json
            """,
        options: ClientOptions.writer, flags: [ClientOptions.json],
        positionals: [PositionalSpec("FILE", help: "Entities, one JSON object per line (- for stdin).")])

    static let deleteSpec = CommandSpec(
        name: "delete",
        abstract: "Remove entities given as type:id.",
        discussion: """
            Exits 1 when some of the entities were not in the catalog (the others are removed).

            EXAMPLES:
              vi-continue catalog delete album:abbey-road concert:1042
              vi-continue catalog delete artist:unknown --json
            """,
        options: ClientOptions.writer, flags: [ClientOptions.json],
        positionals: [PositionalSpec("ENTITY", help: "Entities as type:id.", variadic: true)])

    static let spec = CommandSpec(
        name: "catalog", abstract: "Update a server's catalog: import, upsert, delete.",
        subcommands: [importSpec, upsertSpec, deleteSpec])

    /// One rejected line or entity.
    struct Rejection {
        var line: Int?
        var entity: EntityRef?
        var message: String
    }

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        await runClientCommand { () throws(CommandFailure) in
            switch arguments.commandPath.last {
            case "delete": try await runDelete(arguments)
            case "upsert": try await runUpsert(arguments, strict: true)
            default: try await runUpsert(arguments, strict: false)
            }
        }
    }

    private static func runUpsert(_ arguments: ParsedArguments, strict: Bool) async throws(CommandFailure) -> Int32 {
        let path = arguments.positionals[0]
        let file = try CatalogFileReader(path: path)
        var rejections = file.errors.map { Rejection(line: $0.line, entity: nil, message: $0.reason) }
        if strict, !rejections.isEmpty {
            for rejection in rejections {
                writeError("error: \(path) line \(rejection.line ?? 0): \(rejection.message)")
            }
            throw .usage(
                "\(path) has \(rejections.count) bad line\(rejections.count == 1 ? "" : "s"); nothing was sent")
        }
        if file.items.isEmpty, strict { throw .usage("\(path) holds no entities") }
        let backend = try ClientOptions.remoteBackend(arguments, writing: true)
        return try await withBackend(backend) { backend throws(CommandFailure) in
            var applied = 0
            var version: UInt64 = 0
            let batchSize = strict ? max(file.items.count, 1) : importBatchSize
            var batches = stride(from: 0, to: file.items.count, by: batchSize).map {
                Array(file.items[$0..<min($0 + batchSize, file.items.count)])
            }
            while !batches.isEmpty {
                let batch = batches.removeFirst()
                let request = UpsertEntitiesRequest(entities: batch.map(\.entity))
                do throws(CommandFailure) {
                    let response = try await backend.perform { try await $0.upsertEntities(request) }
                    applied += Int(response.applied)
                    version = response.catalogVersion
                } catch  where error.exitCode == ExitCode.usage && !strict {
                    // The server rejects a batch with a bad entity whole (INVALID_ARGUMENT). Import
                    // applies every good line: send that batch again an entity at a time, so each
                    // bad one is reported with its own line and reason.
                    if batch.count > 1 {
                        batches.insert(contentsOf: batch.map { [$0] }, at: 0)
                    } else {
                        rejections.append(
                            Rejection(
                                line: batch[0].line,
                                entity: EntityRef(type: batch[0].entity.type, id: batch[0].entity.id),
                                message: error.message))
                    }
                }
            }
            rejections.sort { ($0.line ?? 0) < ($1.line ?? 0) }
            report(
                arguments, file: path, applied: applied, version: version, rejections: rejections,
                skipped: file.skippedSynonymLines)
            if !rejections.isEmpty {
                let total = file.items.count + file.errors.count
                writeError(
                    "error: \(rejections.count) of \(total) entity lines in \(path) were not applied (listed above)")
            }
            return rejections.isEmpty ? ExitCode.ok : ExitCode.notFound
        }
    }

    private static func runDelete(_ arguments: ParsedArguments) async throws(CommandFailure) -> Int32 {
        var refs: [EntityRef] = []
        for argument in arguments.positionals { refs.append(try EntityArgument.parse(argument)) }
        guard !refs.isEmpty else { throw .usage("name at least one entity as type:id") }
        let backend = try ClientOptions.remoteBackend(arguments, writing: true)
        return try await withBackend(backend) { backend throws(CommandFailure) in
            let response = try await backend.perform {
                try await $0.deleteEntities(DeleteEntitiesRequest(entities: refs))
            }
            let rejections = response.errors.map { Rejection(line: nil, entity: $0.entity, message: $0.message) }
            report(
                arguments, file: nil, applied: Int(response.applied), version: response.catalogVersion,
                rejections: rejections, skipped: [])
            if !rejections.isEmpty {
                writeError("error: \(rejections.count) of \(refs.count) entities were not removed (listed above)")
            }
            return rejections.isEmpty ? ExitCode.ok : ExitCode.notFound
        }
    }

    /// Prints the outcome: a summary and the rejected lines or entities.
    private static func report(
        _ arguments: ParsedArguments, file: String?, applied: Int, version: UInt64, rejections: [Rejection],
        skipped: [Int]
    ) {
        if arguments.flag("json") {
            var members: [(String, JSONValue)] = []
            if let file { members.append(("file", .string(file))) }
            members += [
                ("applied", .int(Int64(applied))), ("catalog_version", .int(Int64(clamping: version))),
                (
                    "errors",
                    .array(
                        rejections.map { rejection in
                            .object([
                                ("line", rejection.line.map { .int(Int64($0)) } ?? .null),
                                ("entity", rejection.entity.map(RouteOutput.json) ?? .null),
                                ("message", .string(rejection.message)),
                            ])
                        })
                ),
            ]
            if file != nil { members.append(("skipped_synonym_lines", .array(skipped.map { .int(Int64($0)) }))) }
            print(JSONValue.object(members).rendered)
            return
        }
        var fields = FieldList()
        if let file { fields.append("file", file) }
        fields.append("applied", String(applied))
        fields.append("catalog version", String(version))
        fields.append("rejected", String(rejections.count))
        if !skipped.isEmpty {
            fields.append("skipped", "synonym lines " + skipped.map(String.init).joined(separator: ", "))
        }
        print(fields.rendered)
        guard !rejections.isEmpty else { return }
        var table = TextTable("line", "entity", "reason")
        table.maximumCellWidth = 100
        for rejection in rejections {
            table.append(
                rejection.line.map(String.init) ?? "-", rejection.entity.map(RouteOutput.text) ?? "-", rejection.message
            )
        }
        print("\n" + table.rendered)
    }
}
