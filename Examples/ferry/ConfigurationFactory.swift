import Ferry

/// The one ``SessionConfiguration`` a run uses, set up to behave as curl does.
enum ConfigurationFactory {
    /// curl's connect timeout when `--connect-timeout` is not given.
    static let defaultConnectTimeout: Duration = .seconds(300)
    /// "No limit": curl has no total or idle timeout unless `-m` is given.
    static let unlimited: Duration = .seconds(365 * 24 * 3600)

    static func configuration(for options: Options, builder: RequestBuilder, tls: TLSSetup,
                              cookies: CookieSetup) -> SessionConfiguration {
        var configuration = SessionConfiguration.default
        configuration.httpAdditionalHeaders = builder.additionalHeaders(from: configuration.httpAdditionalHeaders)
        // Without --compressed curl neither asks for nor decodes an encoding: bytes pass as received.
        configuration.automaticallyDecodesContent = options.compressed
        // -m bounds the whole transfer, connect included; 0 means no limit, as curl.
        let total = options.maxTime.flatMap { $0 > 0 ? Duration.seconds($0) : nil } ?? unlimited
        configuration.timeoutIntervalForResource = total
        // curl has no idle timeout: a quiet server is only bounded by -m.
        configuration.timeoutIntervalForRequest = total
        let connect = options.connectTimeout.flatMap { $0 > 0 ? Duration.seconds($0) : nil } ?? defaultConnectTimeout
        configuration.timeoutIntervalForConnect = min(connect, total)
        configuration.maximumResponseBodySize = options.maxFilesize
        // As curl, a redirect is a response like any other unless -L asks to follow it. With
        // -L --max-redirs 0 the first redirect fails (47): the session asks the transfer's
        // observer about it, which refuses it (TransferObserver).
        configuration.httpMaximumRedirects = options.followRedirects ? max(options.maxRedirects, 1) : 0
        configuration.redirectsKeepCredentials = options.locationTrusted
        // curl keeps no credentials between runs and answers only the scheme it was told to.
        configuration.urlCredentialStorage = nil
        switch options.authScheme {
        case .basic: configuration.httpAuthenticationMethods = [.httpBasic]
        case .digest: configuration.httpAuthenticationMethods = [.httpDigest]
        case .any: configuration.httpAuthenticationMethods = [.httpBasic, .httpDigest]
        }
        // curl does not cap connections per host: with -Z, --parallel-max is the only bound.
        if options.parallel {
            configuration.httpMaximumConnectionsPerHost = max(configuration.httpMaximumConnectionsPerHost, options.parallelMax)
        }
        // One event loop, as curl runs one thread: the transfers' own code runs on it too
        // (Runner), so a request and its answer cost no thread switch, whatever the host.
        configuration.eventLoopCount = 1
        configuration.proxy = proxy(for: options)
        // --proto =https and --proto-redir =https map onto the transport security policy, so
        // the refusal comes before any socket, as curl's.
        if options.protocols?.allowsHTTP == false {
            configuration.transportSecurity.plainHTTP = .refused
        } else if options.redirectProtocols?.allowsHTTP == false {
            configuration.transportSecurity.plainHTTP = .refusedForRedirects
        }
        tls.apply(to: &configuration)
        cookies.apply(to: &configuration)
        return configuration
    }

    /// curl's proxy rules: `-x` names the proxy for every URL (`-x ""`: none at all), else the
    /// environment's; `--noproxy` replaces `no_proxy`; `-U` is the proxy's credential.
    static func proxy(for options: Options) -> ProxyConfiguration {
        var proxy: ProxyConfiguration
        switch options.proxy {
        case nil: proxy = .environment
        case .none?: proxy = .none
        case .url(let url)?: proxy = .http(url)
        }
        if let list = options.noProxy { proxy.bypass = [list] }
        if let user = options.proxyUser {
            let (name, password) = Options.userAndPassword(user)
            proxy.credential = Credential(user: name, password: password, persistence: .none)
        }
        return proxy
    }
}
