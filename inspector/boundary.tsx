import { Component, type ComponentChildren, type VNode } from 'preact';
import { errorMessage } from './source/snapshot.js';

interface BoundaryProps {
  /** Names the part for the message, e.g. "The entries list". */
  what: string;
  /** A new value tries the part again: new data may well render. */
  retryKey?: unknown;
  /** How the failure shows; default a line saying what failed and why, with "Try again". */
  fallback?: (message: string, retry: () => void) => VNode;
  children?: ComponentChildren;
}

interface BoundaryState {
  error?: string;
}

/**
 * Catches an error thrown while rendering its part of the panel, so the rest of the panel stays
 * live (new results still appear), and says what failed instead of a blank or frozen panel.
 */
export class Boundary extends Component<BoundaryProps, BoundaryState> {
  override state: BoundaryState = {};

  static override getDerivedStateFromError(error: unknown): BoundaryState {
    return { error: errorMessage(error) };
  }

  override componentDidCatch(error: unknown): void {
    // For the developer reading the console: the stack, which the panel does not show.
    console.error(`tool-output-offload inspector: ${this.props.what} failed to render`, error);
  }

  override componentDidUpdate(previous: BoundaryProps): void {
    if (this.state.error !== undefined && previous.retryKey !== this.props.retryKey) this.#retry();
  }

  #retry = () => this.setState({ error: undefined });

  override render() {
    const { error } = this.state;
    if (error === undefined) return this.props.children;
    if (this.props.fallback) return this.props.fallback(error, this.#retry);
    return (
      <div class="error" role="alert">
        {this.props.what} could not be shown: {error}{' '}
        <button type="button" onClick={this.#retry}>
          Try again
        </button>
      </div>
    );
  }
}
