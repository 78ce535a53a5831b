import Ferry

/// curl's `--proto` and `--proto-redir` lists: comma-separated protocol names, each added
/// (`+`, the default), removed (`-`) or the only one (`=`), `all` standing for every protocol,
/// read left to right. Only http and https matter to ferry; other names are accepted and
/// ignored, as curl ignores protocols it was built without.
struct ProtocolList: Equatable {
    /// The protocols allowed.
    private(set) var allowed: Set<String>

    /// The list in `text`, applied to `start` (every protocol for `--proto`, curl's redirect
    /// defaults for `--proto-redir`, both http and https here).
    init(_ text: String, start: Set<String> = ["http", "https"]) {
        allowed = start
        for item in text.split(separator: ",", omittingEmptySubsequences: true) {
            var name = Substring(item.filter { $0 != " " && $0 != "\t" })
            var modifier: Character = "+"
            while let first = name.first, "+-=".contains(first) {
                modifier = first
                name = name.dropFirst()
            }
            let names: Set<String> = name.lowercased() == "all" ? ["http", "https"] : [name.lowercased()]
            switch modifier {
            case "=": allowed = names
            case "-": allowed.subtract(names)
            default: allowed.formUnion(names)
            }
        }
    }

    /// Whether plain http is allowed.
    var allowsHTTP: Bool { allowed.contains("http") }
    /// Whether https is allowed.
    var allowsHTTPS: Bool { allowed.contains("https") }
}
