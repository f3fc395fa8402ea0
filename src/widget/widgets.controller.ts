import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { Audit } from '../audit/audit.decorator';
import { Roles } from '../auth/roles.decorator';
import { Contract } from '../common/contract';
import { ACCESS } from '../shared/contracts/roles';
import { DeletedWidgetSchema, WidgetSchema, WidgetSettingsSchema, WidgetWithSecretSchema, type WidgetSettings } from '../shared/contracts/widgets';
import { WidgetsService } from './widgets.service';

/** The console's widgets: list, make (the identity secret is in that one answer), change, delete, rotate the secret. */
@Controller('api/widgets')
@Roles(...ACCESS.widgets)
export class WidgetsController {
  constructor(private readonly widgets: WidgetsService) {}

  @Get()
  @Contract({ summary: 'Every widget', data: [WidgetSchema] })
  async list() {
    return { success: true, data: await this.widgets.list() };
  }

  @Post()
  @Audit('widget.create', { target: 'widget', idFrom: (reply) => reply.data?.widget?.id })
  @Contract({ summary: 'Make a widget: the answer holds its identity secret, shown this once', body: WidgetSettingsSchema, data: WidgetWithSecretSchema, status: 201 })
  async create(@Body() body: WidgetSettings) {
    return { success: true, data: await this.widgets.create(body) };
  }

  @Get(':id')
  @Contract({ summary: 'One widget', data: WidgetSchema, errors: [404] })
  async get(@Param('id') id: string) {
    return { success: true, data: await this.widgets.get(id) };
  }

  @Put(':id')
  @Audit('widget.update', { target: 'widget' })
  @Contract({ summary: "Change a widget's settings (all of them)", body: WidgetSettingsSchema, data: WidgetSchema, errors: [404] })
  async update(@Param('id') id: string, @Body() body: WidgetSettings) {
    return { success: true, data: await this.widgets.update(id, body) };
  }

  @Delete(':id')
  @Audit('widget.delete', { target: 'widget' })
  @Contract({ summary: 'Delete a widget: its snippet stops working on every site at once', data: DeletedWidgetSchema, errors: [404] })
  async remove(@Param('id') id: string) {
    return { success: true, data: await this.widgets.remove(id) };
  }

  @Post(':id/secret')
  @Audit('widget.rotate-secret', { target: 'widget' })
  @Contract({ summary: 'Rotate the identity secret: the new one is in this answer only; signatures made with the old one stop working', data: WidgetWithSecretSchema, errors: [404] })
  async rotate(@Param('id') id: string) {
    return { success: true, data: await this.widgets.rotateSecret(id) };
  }
}
