// ferry-echo-server: the test suite's HTTPBin echo server, over http and https, on 127.0.0.1,
// for trying the examples by hand (`swift run ferry-echo-server`). The https server sends the
// test chain (leaf for 127.0.0.1, signed by the test intermediate and root); its root and the
// leaf's public-key pin are printed, for `ferry-api --cacert … --pin …`.
import Dispatch
import Ferry
import Foundation
import TestSupport

let http = try HTTPBinServer()
let https = try TLSTestServer()
let root = TestCertificateFiles.path("root-ca.pem")
let leaf = try Certificate.certificates(inFile: TestCertificateFiles.url("leaf.pem"))[0]
print("http   \(http.baseURLString)/")
print("https  \(https.baseURLString)/")
print("cacert \(root)")
print("pin    \(leaf.publicKey.pin)")
print("Ctrl-C stops it.")
fflush(nil)
// Both servers run on their own threads; this one only waits.
dispatchMain()
