import Ferry

/// Runs every URL of the command line over one session and decides the exit code.
///
/// Sequential by default, as curl: each transfer starts when the previous one ended, so
/// kept-alive connections are reused. With `-Z`, at most `--parallel-max` run at once in a
/// task group. ``ExitCode/overall(_:parallel:)`` turns the transfers' codes into the run's.
struct Runner: Sendable {
    let options: Options
    let builder: RequestBuilder
    let console: Console
    let writeOut: WriteOut?
    /// Trust roots, client identity and trust evaluator, read once for every transfer.
    let tls: TLSSetup
    /// The cookie engine (`-b`, `-c`), set up once for every transfer.
    let cookies: CookieSetup
    /// `-D`'s file, shared by every transfer.
    let headerDump: HeaderDump?

    func run() async -> ExitCode {
        let session = Transfer.makeSession(
            configuration: ConfigurationFactory.configuration(for: options, builder: builder, tls: tls, cookies: cookies))
        defer { Transfer.shutdown(session) }
        // The transfers run on the session's one event loop, as curl's on its one thread: each
        // answer resumes them there and each request starts from there, with no thread woken
        // in between. Nothing below blocks but short writes to the outputs, as curl's do.
        let code = await withTaskExecutorPreference(Transfer.executor(of: session, for: options.jobs)) {
            options.parallel ? await runParallel(session) : await runSequential(session)
        }
        // The last -w lines (written soon, not at once: see Console.writeOutSoon).
        console.flush()
        cookies.saveJar(console: console, silent: options.silent)
        return code
    }

    private func runSequential(_ session: Session) async -> ExitCode {
        var codes: [ExitCode] = []
        for job in options.jobs {
            let progress = showsProgress(for: job) ? ProgressReporter(console: console) : nil
            let report = await transfer(job, session, progress).run()
            progress?.finish()
            finish(report)
            codes.append(report.exitCode)
        }
        return ExitCode.overall(codes, parallel: false)
    }

    private func runParallel(_ session: Session) async -> ExitCode {
        // curl draws one combined meter for all parallel transfers.
        let progress = showsProgress(for: nil) ? ProgressReporter(console: console) : nil
        var codes: [ExitCode] = []
        await BoundedTaskGroup.run(options.jobs, limit: options.parallelMax) { job in
            await transfer(job, session, progress).run()
        } onResult: { report in
            // End the meter's line so the error line starts on its own.
            if report.exitCode != .ok { progress?.finish() }
            finish(report)
            codes.append(report.exitCode)
        }
        progress?.finish()
        return ExitCode.overall(codes, parallel: true)
    }

    private func transfer(_ job: Options.Job, _ session: Session, _ progress: ProgressReporter?) -> Transfer {
        Transfer(job: job, options: options, builder: builder, session: session, console: console, progress: progress,
                 tlsFailure: tls.failure, headerDump: headerDump)
    }

    /// curl's order: the error line first, then the `-w` text.
    private func finish(_ report: TransferReport) {
        if report.exitCode != .ok && options.showsErrors && !report.warnedInstead {
            console.writeErrorLines(["ferry: (\(report.exitCode)) \(report.errorMessage)"])
        }
        if let writeOut {
            let (text, errorText, warnings) = writeOut.render(report)
            console.writeErrorLines(warnings.map { "ferry: \($0)" })
            if !errorText.isEmpty { console.writeError(errorText) }
            console.writeOutSoon(text)
        }
    }

    /// The meter needs a terminal on standard error and no `-s`; it is also left out when the
    /// body itself goes to a terminal, where the two would scramble each other.
    private func showsProgress(for job: Options.Job?) -> Bool {
        guard console.stderrIsTerminal && !options.silent else { return false }
        guard let job else { return true }
        return job.filePath != nil || !console.stdoutIsTerminal
    }
}
