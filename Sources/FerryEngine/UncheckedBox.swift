/// Carries a loop-confined object through a `@Sendable` closure that hops back to its loop.
///
/// The value is only touched on its event loop; the box exists because the compiler cannot
/// see that the closure runs there.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
