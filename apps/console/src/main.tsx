import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { queryClient } from './api/queryClient.ts';
import { router } from './routes.tsx';
import { renewWhileUsed } from './session/lifecycle.ts';
import './styles/app.css';
import './styles/subscriptions.css';
import { prepareDateFormat } from './ui/format.ts';

// The first view's chunk and calls (its route's loader) start now, and React renders once they are in: once, with
// the view, rather than first a tree that waits for them (on a slow phone, 80–100 ms of script for nothing shown).
const loaded = router.load().catch(() => {});
prepareDateFormat();
renewWhileUsed();

loaded.then(() =>
  createRoot(document.getElementById('root') as HTMLElement).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>,
  ),
);
