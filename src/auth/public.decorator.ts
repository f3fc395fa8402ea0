import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'auth:isPublic';

/**
 * Opts a controller or route out of the admin session check. Everything else is private: a new
 * route needs a valid admin session unless someone decided otherwise here.
 */
export const Public = (): ClassDecorator & MethodDecorator => SetMetadata(IS_PUBLIC, true);
