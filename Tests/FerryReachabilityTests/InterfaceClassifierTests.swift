import Foundation
@testable import FerryReachability
import Testing

/// The interface-kind rule, and reading its facts from a sysfs-shaped directory.
struct InterfaceClassifierTests {
    typealias Facts = InterfaceClassifier.SysfsFacts

    @Test(arguments: [
        (name: "eth0", type: UInt16(1), sysfs: Facts(), kind: NetworkInterfaceKind.ethernet),
        (name: "wlp2s0", type: 1, sysfs: Facts(isWireless: true), kind: .wifi),
        (name: "wlan0", type: 1, sysfs: Facts(deviceType: "wlan"), kind: .wifi),
        (name: "mon0", type: 803, sysfs: Facts(), kind: .wifi),
        (name: "wwan0", type: 1, sysfs: Facts(), kind: .wwan),
        (name: "rmnet_data0", type: 519, sysfs: Facts(), kind: .wwan),
        (name: "usb0", type: 1, sysfs: Facts(deviceType: "wwan"), kind: .wwan),
        (name: "ppp0", type: 512, sysfs: Facts(), kind: .wwan),
        (name: "cell0", type: 0xFFFE, sysfs: Facts(), kind: .wwan),
        (name: "tun0", type: 0xFFFE, sysfs: Facts(isTun: true), kind: .other),
        (name: "wg0", type: 0xFFFE, sysfs: Facts(deviceType: "wireguard"), kind: .other),
        (name: "lo", type: 772, sysfs: Facts(), kind: .other),
        (name: "ib0", type: 32, sysfs: Facts(), kind: .other),
    ])
    func followsTheRule(name: String, type: UInt16, sysfs: Facts, kind: NetworkInterfaceKind) {
        #expect(InterfaceClassifier.kind(name: name, hardwareType: type, sysfs: sysfs) == kind, "\(name)")
    }

    @Test func readsFactsFromASysfsShapedDirectory() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-sysfs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: root.appendingPathComponent("wlan0/wireless"), withIntermediateDirectories: true)
        try fileManager.createDirectory(at: root.appendingPathComponent("wwan0"), withIntermediateDirectories: true)
        try "DEVTYPE=wwan\nINTERFACE=wwan0\nIFINDEX=4\n".write(to: root.appendingPathComponent("wwan0/uevent"), atomically: true, encoding: .utf8)
        try fileManager.createDirectory(at: root.appendingPathComponent("tun0"), withIntermediateDirectories: true)
        try "0x1001\n".write(to: root.appendingPathComponent("tun0/tun_flags"), atomically: true, encoding: .utf8)

        #expect(InterfaceClassifier.readFacts(root: root.path, name: "wlan0") == Facts(isWireless: true))
        #expect(InterfaceClassifier.readFacts(root: root.path, name: "wwan0") == Facts(deviceType: "wwan"))
        #expect(InterfaceClassifier.readFacts(root: root.path, name: "tun0") == Facts(isTun: true))
        #expect(InterfaceClassifier.readFacts(root: root.path, name: "missing") == Facts())
        #expect(InterfaceClassifier.readFacts(root: root.path + "/wlan0", name: "..") == Facts(), "never leaves the root")
        let classifier = InterfaceClassifier(sysfsRoot: root.path)
        #expect(classifier.kind(name: "wlan0", hardwareType: 1) == .wifi)
        #expect(classifier.kind(name: "tun0", hardwareType: 0xFFFE) == .other)
        #expect(InterfaceClassifier(sysfsRoot: nil).kind(name: "wlan0", hardwareType: 1) == .ethernet)
    }

    @Test func statusesReadAsTheCommandLinePrintsThem() {
        #expect(NetworkReachabilityStatus.unknown.description == "unknown")
        #expect(NetworkReachabilityStatus.notReachable.description == "not-reachable")
        let wifi = NetworkReachabilityStatus.reachable(via: .wifi, interface: "wlan0")
        #expect(wifi.description == "reachable via wifi (wlan0)")
        #expect(wifi.isReachable && wifi.interfaceKind == .wifi && wifi.interfaceName == "wlan0")
        #expect(!NetworkReachabilityStatus.notReachable.isReachable && NetworkReachabilityStatus.unknown.interfaceName == nil)
    }
}
