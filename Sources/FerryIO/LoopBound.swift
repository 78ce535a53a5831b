/// A value that is only touched on one ``EventLoop``'s thread but has to ride through a
/// `@Sendable` closure to get back there.
package struct LoopBound<Value>: @unchecked Sendable {
    /// The wrapped value; read it only on the loop it belongs to.
    package let value: Value

    /// Wraps `value`.
    package init(_ value: Value) {
        self.value = value
    }
}
