// FerryCLITests
