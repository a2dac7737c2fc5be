/** Names of the state the main step saves for the post step (`core.saveState`). */
export const STATE = { deploymentId: 'deployment-id', final: 'final', finished: 'finished' } as const;
