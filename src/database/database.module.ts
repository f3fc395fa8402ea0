import { Module } from '@nestjs/common';
import { TypeOrmModule, TypeOrmModuleOptions } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { connectionOptions, initializeDataSource, prepareDatabase } from './data-source';

/**
 * The app's one TypeORM DataSource (@nestjs/typeorm), opened from the validated AppConfig and
 * migrated before any feature starts. Each feature module registers its own entities with
 * `TypeOrmModule.forFeature([...])` and gets their repositories injected (`@InjectRepository`);
 * raw SQL (search index, analytics rollups) goes through the injected DataSource. SQLite writes
 * that must stand on their own go through the write queue (write-queue.ts). @nestjs/typeorm closes
 * the DataSource at shutdown (`app.close()`), after every feature's own shutdown hooks.
 */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig): Promise<TypeOrmModuleOptions> => {
        await prepareDatabase(config);
        return {
          ...connectionOptions(config),
          autoLoadEntities: true,
          // A database that cannot be reached fails the start at once, with the driver's reason
          // (@nestjs/typeorm would otherwise retry 9 times, 3 s apart).
          toRetry: () => false,
        };
      },
      dataSourceFactory: (options?: DataSourceOptions) => initializeDataSource(new DataSource(options as DataSourceOptions)),
    }),
  ],
})
export class DatabaseModule {}
