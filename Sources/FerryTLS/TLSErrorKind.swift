@_exported import FerryBase

/// The kinds of FerryTLS's errors: ``ErrorKind`` (FerryBase), under the name FerryTLS has
/// always used. ``CertificateError/Kind``, ``TLSError/Kind``, ``TrustFailure/Reason`` and
/// ``ServerTrustError/Kind`` are this type.
public typealias TLSErrorKind<Domain> = ErrorKind<Domain>
