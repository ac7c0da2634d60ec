internal import JSONReading

/// Route tables are read with the project's one strict JSON reader.
typealias JSON = JSONDocument
