package app

// async is the result of a function running in its own goroutine.
type async[T any] struct {
	done chan struct{}
	v    T
	err  error
}

// goAsync runs fn in a new goroutine.
func goAsync[T any](fn func() (T, error)) *async[T] {
	a := &async[T]{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		a.v, a.err = fn()
	}()
	return a
}

// wait returns fn's result once it has returned (as often as asked).
func (a *async[T]) wait() (T, error) {
	<-a.done
	return a.v, a.err
}
