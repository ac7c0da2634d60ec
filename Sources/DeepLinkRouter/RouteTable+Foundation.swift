import Foundation

extension RouteTable {
    /// Loads a table from a JSON file.
    ///
    /// - Parameter path: The file's path.
    /// - Throws: `RouteTableError` when the file cannot be read or is not a valid table.
    public init(contentsOfFile path: String) throws(RouteTableError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RouteTableError(code: .unreadable, message: "cannot read route table \"\(path)\"")
        }
        try self.init(json: [UInt8](data))
    }
}
