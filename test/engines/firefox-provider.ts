import { type PlaywrightBrowserProvider, playwright } from '@vitest/browser-playwright';
import type { Frame } from 'playwright';
import type { BrowserProviderOption } from 'vitest/node';

/**
 * Playwright's provider driving a stock Firefox (Debian's firefox-esr) over WebDriver BiDi, through
 * the 'moz-firefox' channel (Playwright 1.57–1.64; 1.65 needs a newer Firefox than ESR 153).
 */
export function firefoxBidi(executablePath: string): BrowserProviderOption {
  const base = playwright({
    launchOptions: {
      channel: 'moz-firefox',
      executablePath,
      firefoxUserPrefs: {
        // navigator.storage.persist() waits for the user to answer a prompt; this answers it (Allow),
        // as Firefox's own tests do, so the tests see what persist() returns once granted.
        'dom.storageManager.prompt.testing': true,
        'dom.storageManager.prompt.testing.allow': true,
      },
    },
  });
  return {
    ...base,
    providerFactory(project) {
      const provider = base.providerFactory(project) as PlaywrightBrowserProvider;
      // Vitest finds its test iframe by name (page.frame('vitest-iframe')), which frames reported over
      // BiDi do not carry, so userEvent.keyboard() fails; the iframe element leads to the same frame.
      const commandsContext = provider.getCommandsContext.bind(provider);
      provider.getCommandsContext = (sessionId: string) => {
        const context = commandsContext(sessionId);
        const byName = context.frame;
        return Object.assign(context, {
          async frame(): Promise<Frame> {
            const element = await context.page.$('iframe[data-vitest="true"]');
            return (await element?.contentFrame()) ?? byName();
          },
        });
      };
      return provider;
    },
  };
}
