#if canImport(Glibc)
import Glibc
#endif

/// Decides an interface's ``NetworkInterfaceKind`` from its hardware type, name and sysfs.
///
/// The rule, first match wins:
/// 1. **wifi** when sysfs has `wireless/` or `phy80211` under the interface (cfg80211 and the
///    old wireless extensions create them), its `uevent` says `DEVTYPE=wlan`, or the hardware
///    type is one of the `ARPHRD_IEEE80211*` monitor types;
/// 2. **wwan** when `uevent` says `DEVTYPE=wwan`, the name starts with `wwan` or `rmnet`
///    (the kernel's WWAN framework and Qualcomm's rmnet), or the hardware type is
///    `ARPHRD_NONE`, `ARPHRD_RAWIP` or `ARPHRD_PPP` (cellular modems hand over raw IP or PPP);
///    except that a raw-IP device sysfs shows to be a tunnel (a `tun_flags` file, or a
///    `DEVTYPE` other than `wwan`, such as WireGuard's) is **other**: a VPN is not a modem;
/// 3. **ethernet** for `ARPHRD_ETHER`;
/// 4. **other** for everything else (loopback, IP-in-IP and GRE tunnels, InfiniBand, …).
///
/// sysfs shows the interfaces of the network namespace it was mounted in, so a monitor of
/// another namespace is built without it (``sysfsRoot`` nil) and classifies by type and name.
package struct InterfaceClassifier: Sendable {
    /// What sysfs says about one interface.
    package struct SysfsFacts: Sendable, Hashable {
        /// `wireless/` or `phy80211` exists.
        package var isWireless = false
        /// `tun_flags` exists (a TUN/TAP device).
        package var isTun = false
        /// `DEVTYPE` from `uevent`, when there is one.
        package var deviceType: String?

        /// Creates facts.
        package init(isWireless: Bool = false, isTun: Bool = false, deviceType: String? = nil) {
            self.isWireless = isWireless
            self.isTun = isTun
            self.deviceType = deviceType
        }
    }

    /// The directory holding one entry per interface (normally `/sys/class/net`), or nil to
    /// classify without sysfs.
    package let sysfsRoot: String?

    /// A classifier reading `sysfsRoot`.
    package init(sysfsRoot: String? = "/sys/class/net") {
        self.sysfsRoot = sysfsRoot
    }

    /// The kind of interface `name` with hardware type `hardwareType`, reading sysfs (a few
    /// small in-memory files) when there is a root.
    package func kind(name: String, hardwareType: UInt16) -> NetworkInterfaceKind {
        let facts = sysfsRoot.map { Self.readFacts(root: $0, name: name) } ?? SysfsFacts()
        return Self.kind(name: name, hardwareType: hardwareType, sysfs: facts)
    }

    /// The rule itself (see the type's documentation). Pure.
    package static func kind(name: String, hardwareType: UInt16, sysfs: SysfsFacts) -> NetworkInterfaceKind {
        if sysfs.isWireless || sysfs.deviceType == "wlan" || Netlink.hardwareIEEE80211.contains(hardwareType) {
            return .wifi
        }
        if sysfs.deviceType == "wwan" || name.hasPrefix("wwan") || name.hasPrefix("rmnet") {
            return .wwan
        }
        switch hardwareType {
        case Netlink.hardwareNone, Netlink.hardwareRawIP, Netlink.hardwarePPP:
            let isTunnel = sysfs.isTun || sysfs.deviceType != nil
            return isTunnel ? .other : .wwan
        case Netlink.hardwareEthernet:
            return .ethernet
        default:
            return .other
        }
    }

    /// Reads the facts for `name` under `root`. Missing files mean "no"; a name that could
    /// leave the directory (`/`, `.`, `..`) is not looked up at all.
    package static func readFacts(root: String, name: String) -> SysfsFacts {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { return SysfsFacts() }
        let directory = root + "/" + name
        var facts = SysfsFacts()
        facts.isWireless = exists(directory + "/wireless") || exists(directory + "/phy80211")
        facts.isTun = exists(directory + "/tun_flags")
        if let uevent = readSmallFile(directory + "/uevent") {
            for line in uevent.split(separator: "\n") where line.hasPrefix("DEVTYPE=") {
                facts.deviceType = String(line.dropFirst("DEVTYPE=".count))
            }
        }
        return facts
    }

    private static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// The first 4 KiB of a file (sysfs attributes are a page at most), or nil.
    private static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { _ = close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { return nil }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }
}
