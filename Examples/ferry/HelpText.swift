/// What `ferry --help` prints.
enum HelpText {
    static let usage = """
    Usage: ferry [options...] <url>...
     -d, --data <data>          HTTP POST data (@file reads a file, CR/LF stripped)
         --data-binary <data>   HTTP POST data exactly as given (@file too)
         --data-raw <data>      HTTP POST data, '@' not special
         --data-urlencode <data> HTTP POST data URL-encoded ([name]=text, [name]@file)
         --json <data>          HTTP POST JSON (sets Content-Type and Accept)
     -F, --form <name=content>  Multipart POST part: name=value, name=@file (streamed;
                                ;type=a/b ;filename=x) or name=<file (file as value)
         --form-string <name=value> Multipart POST field, value taken literally
     -G, --get                  Put the post data in the URL query and use GET
     -H, --header <header>      Pass custom header(s) to server ('Name:' removes, 'Name;' empty)
     -A, --user-agent <name>    Send User-Agent <name> to server ('' sends none)
     -e, --referer <URL>        Referrer URL (';auto': with -L, each page redirected from)
     -X, --request <method>     Specify the request method to use
     -o, --output <file>        Write to file instead of stdout (pairs with URLs in order)
     -C, --continue-at <offset> Resume the -o file at offset ('-': its size); needs -o/-O
                                for every URL, not with -i/-I; a server that ignores the
                                range leaves the file as it was (exit 33)
     -O, --remote-name          Write to a file named as the URL's last path segment
     -J, --remote-header-name   With -O, use the server's Content-Disposition file name
                                (an existing file of that name is not replaced)
     -i, --include              Include the response head in the output
     -D, --dump-header <file>   Write the response heads to this file ('-': stdout)
     -I, --head                 Show document info only (HEAD)
     -r, --range <range>        Retrieve only the bytes within RANGE (GET and HEAD)
     -m, --max-time <seconds>   Maximum time allowed for a transfer
         --connect-timeout <s>  Maximum time allowed for connection
         --compressed           Request a compressed response and decode it
         --http1.1              Use HTTP 1.1 (the only version ferry speaks)
         --max-filesize <bytes> Maximum file size to download (K, M, G suffixes)
         --limit-rate <speed>   Limit each transfer's download and upload to speed bytes
                                per second (K, M, G suffixes; 0: no limit)
         --cacert <file>        CA certificate(s) to verify the peer against (PEM or DER)
     -k, --insecure             Allow insecure server connections (any chain, any host name)
         --no-sessionid         Disable TLS session reuse (every connection a full handshake)
         --pinnedpubkey <hashes|file> Public key of the server's certificate to pin:
                                'sha256//BASE64[;sha256//BASE64]' or a PEM/DER public key
     -E, --cert <file>          Client certificate file (PEM; the key may follow in it)
         --key <file>           Private key file of the client certificate (PEM)
         --pin-cert <file>      Ferry: certificate pinning (AFSecurityPolicy), repeatable
         --pin-pubkey <file>    Ferry: public-key pinning of a certificate's key, repeatable
         --allow-invalid-certs  Ferry: AFSecurityPolicy.allowInvalidCertificates
         --no-validate-domain   Ferry: AFSecurityPolicy.validatesDomainName = false
     -L, --location             Follow redirects
         --max-redirs <num>     Maximum number of redirects allowed (default 50, -1 no limit)
         --location-trusted     Like -L, and let credentials and cookies go to other hosts
     -u, --user <user:password> Server user and password (Basic, sent with the request)
         --basic                Use HTTP Basic authentication (the default)
         --digest               Use HTTP Digest authentication (answered when asked)
         --anyauth              Pick the strongest authentication the server offers
     -x, --proxy <[protocol://]host[:port]> Use this HTTP proxy (CONNECT for https; "" for none)
         --noproxy <list>       Hosts reached without the proxy (replaces no_proxy)
     -U, --proxy-user <user:password> Proxy user and password (Basic, sent up front)
         --proto <protocols>    Enable/disable protocols (=https refuses plain http before connecting)
         --proto-redir <protocols> Protocols a redirect may lead to (=https)
     -b, --cookie <data|file>   Send cookies from string ('k=v; k2=v2') or read a cookie file
     -c, --cookie-jar <file>    Write cookies to <file> after the run ('-' for stdout)
     -j, --junk-session-cookies Ignore session cookies read from a file
     -f, --fail                 Fail fast with no output on HTTP errors
     -s, --silent               Silent mode
     -S, --show-error           Show error even when -s is used
     -v, --verbose              Make the operation more talkative (credentials hidden)
         --show-credentials     Ferry: -v prints Authorization and Proxy-Authorization in full
     -w, --write-out <format>   Use output FORMAT after completion
     -Z, --parallel             Perform transfers in parallel
         --parallel-max <num>   Maximum concurrency for parallel transfers (default 50)
     -K, --config <file>        Read options (and URLs: url = "...") from a file, '-' for stdin
     -h, --help                 This help text
     -V, --version              Show version number and quit

    """
}
