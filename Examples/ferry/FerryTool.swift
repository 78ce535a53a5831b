import Ferry

/// `ferry`: a curl-compatible command-line client on Ferry's public API (see CLI.md).
@main
struct FerryTool {
    static func main() async {
        print("ferry: under construction")
    }
}
