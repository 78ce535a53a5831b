/// The object an ``EventLoop`` calls when a registered descriptor is ready.
///
/// All calls happen on the loop's thread. A handler may modify, deregister or close its own
/// or another descriptor during a call; the loop re-checks the registration before each call.
/// Because events are level-triggered, a handler must act on what it is told (read, write,
/// narrow its interest or deregister) or it is called again on the next turn.
package protocol IOHandler: AnyObject {
    /// The descriptor is readable: data, EOF (read returns 0) or a pending error.
    func readable()
    /// The descriptor is writable, or its non-blocking connect completed (check `SO_ERROR`).
    func writable()
    /// `EPOLLHUP`, `EPOLLRDHUP` or `EPOLLERR`: the peer hung up or the socket has an error.
    /// Read (or ask `SO_ERROR`) to learn which, then deregister or close.
    func hangup()
}
